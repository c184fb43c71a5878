# 3 "genx_gen11.cm"
int genx = 1150;
