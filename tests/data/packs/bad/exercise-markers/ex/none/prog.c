/* A solution whose author forgot to mark what the learner writes. */
int main(void)
{
    return 0;
}
