# 4 "inc/sub/nested.h"
int nested_h = 4;
# 3 "inc/once.h"
int once_h;
# 3 "inc/guarded.h"
int guarded_h;
# 13 "include.cm"
int main_file = 1 + 2 + 3;
