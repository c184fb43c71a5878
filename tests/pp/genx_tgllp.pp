# 3 "genx_tgllp.cm"
int genx = 1200, revid = 0;

gen12





new_dataport_but_no_lsc
