# 9 "elif_chain.cm"
three







has_level




ifndef_elif
# 32 "elif_chain.cm"
after
