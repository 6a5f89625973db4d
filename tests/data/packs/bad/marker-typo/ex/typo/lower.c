/* Marker words in small letters, with a count. */
/* todo 1: the answer */
int lower(void)
{
    return 0;
}
