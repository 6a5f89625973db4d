/* How many bytes slow-echo asks read() for at a time. */
#define SLOW_CHUNK 1
