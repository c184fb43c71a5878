#pragma once
// found relative to inc/sub/, where this file lives
#include "sibling.h"
int nested_h = SIBLING;
#define NESTED 3
