/* A TODO that asks to remove more lines than the file has after it. */
int main(void)
{
    /* TODO 9: return success */
    return 0;
}
