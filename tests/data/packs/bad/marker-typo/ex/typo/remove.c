/* A marker word with a letter dropped; an ordinary comment (a Note) is no marker. */
/* Note: nothing here is a marker. */
/* REMVE 1 */
int helper(void)
{
    return 0;
}
