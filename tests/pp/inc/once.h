#pragma once
#include "sub/nested.h"
int once_h;
#define ONCE 1
