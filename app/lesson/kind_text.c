/*
 * kind_text: a step of prose only. It has no keys beyond the common ones and no payload; the
 * UI's half (ui/stepview_text.c) says when the learner has read it.
 */
#include "kind.h"

const struct lesson_kind lesson_kind_text = {
    .name = "text",
};
