/* A marker without its count: one mistake, which lint reports once, at the marker, and not
   again for every check sentence that names this file's TODOs. */
int main(void)
{
    /* TODO: return success */
    return 0;
    /* TODO 1: and again */
    return 0;
}
