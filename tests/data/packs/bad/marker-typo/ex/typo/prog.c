/* A TODO written with a zero for its O would leave the answer in the starter. */
int main(void)
{
    /* TOD0 1: return success */
    return 0;
    /* TODO 1: a real one, so that the exercise has a TODO */
    return 0;
}
