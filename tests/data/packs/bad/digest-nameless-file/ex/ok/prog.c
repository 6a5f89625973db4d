int main(void)
{
    /* TODO 1: return 0 */
    return 0;
}
