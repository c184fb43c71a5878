#define SIBLING 4
