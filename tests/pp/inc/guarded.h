#ifndef GUARDED_H
#define GUARDED_H
int guarded_h;
#define GUARDED 2
#endif
