# 5 "if_arith.cm"
ok_prec




ok_unsigned


ok_shift




ok_short_circuit


ok_char


ok_defined


ok_div
