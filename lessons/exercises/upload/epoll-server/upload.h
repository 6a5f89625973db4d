/* iolab-starter: 1 */
/*
 * upload: what upload-server and upload-client agree on, so that a learner reads the protocol in
 * one place.
 *
 * One upload is one TCP connection:
 *   client -> server  an 8-byte header: the upload's size in bytes, big-endian
 *   client -> server  that many bytes
 *   server -> client  16 bytes: the bytes the server received and their checksum, both
 *                     big-endian 64-bit
 *   then both sides close. (The seed's clients also close after each file.)
 *
 * The checksum is a Fletcher-style pair of 64-bit sums over the data read as little-endian
 * 64-bit words (a zero-padded last word when the size is not a multiple of 8). It is cheap
 * enough (several GB/s) not to be the bottleneck, yet it depends on every byte and on their
 * order, so a lost, doubled or reordered chunk shows. It is fed in whatever pieces read()
 * returns: the state keeps the bytes of a word that is not complete yet.
 */
#ifndef UPLOAD_H
#define UPLOAD_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define UPLOAD_HEADER_SIZE 8
#define UPLOAD_REPLY_SIZE  16
#define UPLOAD_CHUNK       65536 /* the unit of reads and sends, and of --work-us */

struct upload_sum {
    uint64_t a, b;   /* a: sum of the words; b: sum of the running a (makes it order-aware) */
    uint8_t word[8]; /* the bytes of a word not yet complete */
    unsigned have;   /* how many of them */
};

static inline void upload_sum_word(struct upload_sum *s, const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    s->a += le64toh(w);
    s->b += s->a;
}

static inline void upload_sum_add(struct upload_sum *s, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (s->have > 0 && s->have < 8 && len > 0) { /* finish a word split between reads */
        s->word[s->have++] = *p++;
        len--;
    }
    if (s->have == 8) {
        upload_sum_word(s, s->word);
        s->have = 0;
    }
    for (; len >= 8; p += 8, len -= 8)
        upload_sum_word(s, p);
    memcpy(s->word + s->have, p, len);
    s->have += (unsigned)len;
}

/* The checksum of everything added so far (the state is not changed). */
static inline uint64_t upload_sum_value(const struct upload_sum *s)
{
    struct upload_sum t = *s;
    if (t.have > 0) {
        memset(t.word + t.have, 0, 8 - t.have);
        upload_sum_word(&t, t.word);
    }
    return t.a ^ (t.b << 1 | t.b >> 63);
}

/* Encodes / decodes the 16-byte reply. */
static inline void upload_reply_pack(uint8_t out[UPLOAD_REPLY_SIZE], uint64_t bytes, uint64_t sum)
{
    uint64_t be[2] = {htobe64(bytes), htobe64(sum)};
    memcpy(out, be, sizeof be);
}

static inline void upload_reply_unpack(const uint8_t in[UPLOAD_REPLY_SIZE], uint64_t *bytes,
                                       uint64_t *sum)
{
    uint64_t be[2];
    memcpy(be, in, sizeof be);
    *bytes = be64toh(be[0]);
    *sum = be64toh(be[1]);
}

#endif
