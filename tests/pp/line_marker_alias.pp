# 10 "line_marker_alias.cm"
int a;
# 20 "x.cm"
int b = 20;
# 30 "y.cm"
const char *f = "y.cm";
