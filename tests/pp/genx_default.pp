# 3 "genx_default.cm"
int genx = 900, v = 701, c7 = 700, ll = 1;

cm_compiler
