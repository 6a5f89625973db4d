/* iolab-starter: one */
/* Two TODOs: a check sentence may name TODO 1 or 2 of prog.c, not 3. */
int main(void)
{
    /* TODO 2: the first */
    int a = 0;
    (void)a;
    /* TODO 1: the second */
    return 0;
}
