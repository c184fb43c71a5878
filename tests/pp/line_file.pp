# 5 "line_file.cm"
int a = 5, b = 5;
const char *f = "line_file.cm";
int c = 0 + 1 * 10;
# 100 "line_file.cm"
int d = 100;
# 200 "other.cm"
int e = 200; const char *g = "other.cm";
int h = 201
+ 202;
