// Shared configuration for 047_stencil_macros.cm.
#pragma once
#define TILE_W 32
#define HALO 1
#define WEIGHT(i) (0.25f * (i))
