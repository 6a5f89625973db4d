/*
 * probe: the parts of iolab-count-probe compiled with _FORTIFY_SOURCE=2 (probe_fortify.c), so
 * that the program calls __read_chk, __recv_chk, __pread64_chk, __poll_chk, __open_2 and their
 * kin exactly as a hardened distribution build of a C program does.
 */
#ifndef IOLAB_PROBE_H
#define IOLAB_PROBE_H

/* recv() and recvfrom() of 4 bytes each from c to s, through their __*_chk variants. */
void probe_fortify_sockets(int c, int s);

/* poll() and ppoll() on the readable fd, through __poll_chk and __ppoll_chk. */
void probe_fortify_waits(int readable);

/* open() (__open_2), read() (__read_chk) and pread() (__pread64_chk) of a file in dir. */
void probe_fortify_files(const char *dir);

#endif
