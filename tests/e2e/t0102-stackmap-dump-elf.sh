# description: stackmap dump --elf: symbolise an FSMB file with a program's ELF symbols (libelf), written by an independent writer
# requires: cc nm
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
need_cmd nm
cat >p.c <<'C'
int leaf(int x) { return x * 3 + 1; }
int middle(int x) { return leaf(x) + leaf(x + 1); }
int main(int argc, char **argv) { (void)argv; return middle(argc); }
C
cc -O0 -g -no-pie -fno-pie -o p p.c || fail "cannot compile"
# "addr size type name" of each function
sym() { nm -S p | awk -v n="$1" '$4 == n { print $1, $2 }'; }
read -r leaf_a leaf_s <<<"$(sym leaf)"
read -r mid_a mid_s <<<"$(sym middle)"
read -r main_a main_s <<<"$(sym main)"
[ -n "$leaf_a" ] && [ -n "$main_a" ] || fail "nm found no symbols"
u32() { local v=$1; printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)))"; }
u64() { u32 $(($1 & 0xffffffff)); u32 $((($1 >> 32) & 0xffffffff)); }
{
	u32 0x464D5342; u32 2; u32 2; u32 0
	u32 5; u32 3; u32 10; u32 0
	u64 $((0x$leaf_a + 4)); u64 $((0x$mid_a + 0x10)); u64 $((0x$main_a + 1))
	u32 9; u32 1; u32 1; u32 0
	u64 0x10
} >p.fsmb
$FTRAIL stackmap dump p.fsmb --elf p >out || fail "dump --elf"
printf '%s\n' "stack_id 5 [ref 10, depth 3]" \
	"  [0] leaf+0x4/0x$(printf %x $((0x$leaf_s)))" \
	"  [1] middle+0x10/0x$(printf %x $((0x$mid_s)))" \
	"  [2] main+0x1/0x$(printf %x $((0x$main_s)))" \
	"" \
	"stack_id 9 [ref 1, depth 1]" \
	"  [0] 0x10" \
	"" >expected
diff -u expected out || fail "wrong symbolisation"
exit 0
