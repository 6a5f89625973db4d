/*
 * fuzz_lesson: libFuzzer target for the lesson loader, from memory (lesson_pack_load_mem), so
 * no file system is touched for the pack itself.
 *
 * An input is one lesson file, a.json, loaded with a fixed pack.json that lists it; or, when it
 * contains the separator line FUZZ_SEP, a pack.json (before it) and an a.json (after it), so that
 * both kinds of file are fuzzed. The seed corpus (make_corpus.sh) uses both forms.
 *
 * What is checked: no crash, no leak, no undefined behaviour (ASan+UBSan), and the loader's own
 * promise: a load returns a pack and no diagnostics, or diagnostics and no pack.
 */
#include "lesson.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_SEP "\n#####\n"

static const char fuzz_pack_json[] = "{\"format_version\": 1, \"id\": \"fuzz\", \"title\": \"F\", "
                                     "\"version\": \"1\", \"lessons\": [\"a\"]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *sep = memmem(text, size, FUZZ_SEP, sizeof FUZZ_SEP - 1);
    struct lesson_mem_file files[2] = {
        {.name = "pack.json", .data = fuzz_pack_json, .len = sizeof fuzz_pack_json - 1},
        {.name = "a.json", .data = text, .len = size},
    };
    if (sep) {
        files[0].data = text;
        files[0].len = (size_t)(sep - text);
        files[1].data = sep + sizeof FUZZ_SEP - 1;
        files[1].len = size - files[0].len - (sizeof FUZZ_SEP - 1);
    }
    struct lesson_load_options opts = {.libexec_dir = IOLAB_FUZZ_LIBEXEC};
    struct lesson_pack *pack = NULL;
    struct lesson_diags diags = {0};
    int rc = lesson_pack_load_mem("fuzz", files, 2, &opts, &pack, &diags);
    if ((rc == 0) != (pack != NULL) || (rc == 0 && diags.n) || (rc == -EINVAL && !diags.n))
        abort();
    for (size_t i = 0; i < diags.n; i++)
        if (!diags.v[i].file || !diags.v[i].message || diags.v[i].line < 1 || diags.v[i].col < 1)
            abort();
    lesson_pack_free(pack);
    lesson_diags_free(&diags);
    return 0;
}
