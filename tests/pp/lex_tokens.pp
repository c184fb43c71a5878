# 2 "lex_tokens.cm"
a++ +b a-- >b x<<=y x>>=y a...b p->q ::r m[i[0]] v>>1 #x ## y %= ^= |= &&||
x = 1.5f + .5 + 1e10 + 0x1p-3 + 0x1F + 0b101 + 017 + 42u + 7ULL + 3ll;
c = 'a' + '\n' + '\x41' + L'w'; s = "tab\there" u8"utf" "joined";
long_name_spliced
= 1;
int after_comment;
$dollar_id = 0;
