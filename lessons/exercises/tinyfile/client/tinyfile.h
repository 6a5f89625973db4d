/* iolab-starter: 1 */
/*
 * tinyfile: what tiny-service and tiny-client agree on. Everything a learner needs to follow one
 * request is here: the messages on the System V queue, the layout of a shared-memory segment,
 * the three semaphores per segment, and the compressor itself.
 *
 * Objects (all created by the service, all removed by it with IPC_RMID when it exits):
 * - one message queue, IPC_PRIVATE: registration only. Its id is published in a file in the work
 *   directory (TF_ID_FILE), because IPC_PRIVATE never collides with another scenario's objects
 *   while a key from ftok() could, outside the full tier's IPC namespace.
 * - N shared-memory segments of S bytes: a struct tf_segment header, then data.
 * - three semaphore sets of N semaphores, one semaphore per segment in each:
 *     own  (starts at 1) which client holds segment i; taken with SEM_UNDO, so a client that dies
 *          while holding it gives it back
 *     req  (starts at 0) "a request is in segment i": the client posts, the service waits
 *     rep  (starts at 0) "the reply is in segment i": the service posts, the client waits
 *
 * Registration: the client sends TF_REGISTER with a token of its own and waits for the reply
 * whose mtype is that token. (Not its pid: in the full tier each program has its own PID
 * namespace, so two clients may well both be pid 2.)
 *
 * The compressor is a small LZ77: the output is a sequence of tokens,
 *   0x00..0x7f  a literal run: the next (c + 1) bytes are copied as they are;
 *   0x80..0xff  a match: copy (c - 0x80 + 4) bytes from d bytes back in the output, where d
 *               follows as two little-endian bytes (1..65535).
 * Matches are found through a hash of the next three bytes and used from 4 bytes on, so that a
 * match always saves at least the literal-run byte it may cost. The worst case (nothing repeats)
 * is then one extra byte per 128, so tf_max_input() leaves room for that in every segment.
 */
#ifndef TINYFILE_H
#define TINYFILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TF_ID_FILE        "tinyfile.id" /* default: the queue id, one decimal line */
#define TF_MAX_SEGMENTS   16
#define TF_MIN_SEG_SIZE   64
#define TF_MAX_SEG_SIZE   65536 /* distances and positions in a segment fit in 16 bits */
#define TF_MSG_REGISTER   1     /* client -> service */
#define TF_MSG_DEREGISTER 2     /* client -> service */
#define TF_TOKEN_MIN      3     /* service -> client replies use mtype = the client's token */

enum tf_sem_set { TF_SEM_OWN, TF_SEM_REQ, TF_SEM_REP, TF_NSEMSETS };

/* Client to service, mtype TF_MSG_REGISTER or TF_MSG_DEREGISTER. */
struct tf_hello {
    long mtype;
    long token; /* where the reply goes: mtype of the answer, >= TF_TOKEN_MIN */
};

/* Service to client, mtype = the client's token: what to attach and which semaphores to use. */
struct tf_welcome {
    long mtype;
    int32_t segments;           /* N */
    int32_t segment_size;       /* S, header included */
    int32_t semid[TF_NSEMSETS]; /* own, req, rep */
    int32_t shmid[TF_MAX_SEGMENTS];
};

/* The start of every segment; data[] fills the rest of it. */
struct tf_segment {
    uint64_t seq; /* the client's request number; the service writes back the one it served */
    uint32_t len; /* bytes in data[]: the input, then the compressed output */
    uint32_t pad;
    unsigned char data[];
};

/* The most input that fits in a segment of `size` bytes even when compressing expands it. */
static inline size_t tf_max_input(size_t size)
{
    size_t cap = size - sizeof(struct tf_segment);
    return (cap - 1) * 128 / 129;
}

static inline size_t tf_put_literals(const unsigned char *lit, size_t n, unsigned char *out)
{
    size_t o = 0;
    while (n > 0) {
        size_t run = n < 128 ? n : 128;
        out[o++] = (unsigned char)(run - 1);
        memcpy(out + o, lit, run);
        o += run, lit += run, n -= run;
    }
    return o;
}

/* Compresses n (< 65536) bytes into out, which has room for n + n / 128 + 1; returns its size. */
static inline size_t tf_compress(const unsigned char *in, size_t n, unsigned char *out)
{
    uint32_t last[4096] = {0}; /* position + 1 of the last time each 3-byte hash was seen */
    size_t i = 0, o = 0, lit = 0;
    while (i + 3 <= n) {
        uint32_t h = ((uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2]) * 2654435761u;
        h >>= 20;
        size_t cand = last[h];
        last[h] = (uint32_t)(i + 1);
        if (cand == 0 || memcmp(in + cand - 1, in + i, 3) != 0) {
            i++;
            continue;
        }
        size_t from = cand - 1, len = 3;
        while (i + len < n && len < 131 && in[from + len] == in[i + len])
            len++;
        if (len < 4) {
            i++;
            continue;
        }
        o += tf_put_literals(in + lit, i - lit, out + o);
        size_t dist = i - from;
        out[o++] = (unsigned char)(0x80 | (len - 4));
        out[o++] = (unsigned char)(dist & 0xff);
        out[o++] = (unsigned char)(dist >> 8);
        i += len;
        lit = i;
    }
    return o + tf_put_literals(in + lit, n - lit, out + o);
}

/* Undoes tf_compress into out (room for cap bytes); the size, or -1 when in is malformed. */
static inline long tf_decompress(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < n) {
        unsigned c = in[i++];
        if (c < 0x80) {
            size_t run = c + 1;
            if (i + run > n || o + run > cap)
                return -1;
            memcpy(out + o, in + i, run);
            i += run, o += run;
            continue;
        }
        if (i + 2 > n)
            return -1;
        size_t len = c - 0x80 + 4, dist = in[i] | (size_t)in[i + 1] << 8;
        i += 2;
        if (dist == 0 || dist > o || o + len > cap)
            return -1;
        for (size_t k = 0; k < len; k++, o++) /* byte by byte: a match may overlap itself */
            out[o] = out[o - dist];
    }
    return (long)o;
}

/*
 * The exercise's test text, byte for byte as the exercise's tiny-client makes it: log-like text
 * that repeats enough to compress and differs enough to catch a mix-up. tiny-service
 * --check-text N makes the same N bytes to tell whether every chunk it received is a part of it.
 */
static inline void tf_test_text(unsigned char *buf, size_t len)
{
    for (size_t o = 0; o < len; o++)
        buf[o] = (unsigned char)("GET /lessons/tinyfile HTTP/1.1 200 "[o % 35] + (o / 997) % 7);
}

/* FNV-1a, 64 bits: the digest the service prints of what it received and sent. */
static inline uint64_t tf_fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 0x100000001b3ull;
    return h;
}
#define TF_FNV1A_START 0xcbf29ce484222325ull

#endif
