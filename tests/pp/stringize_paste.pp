# 8 "stringize_paste.cm"
const char *s1 = "a + \"b\\n\" 'c'";
const char *s2 = "7";
const char *s3 = "VER";
int varVER = 0x1F + 5 + 6;
xz 123
int xCAT(y, z);
a <<= b += c;
