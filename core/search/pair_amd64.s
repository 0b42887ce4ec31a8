#include "textflag.h"

// func pairAVX2(pa, pb *byte, n int, m *[4]byte) int
//
// Tests positions 0, 1, ... of n (whole blocks of 32 only) for
// (pa[i]|m[0]) == m[1] && (pb[i]|m[2]) == m[3] and returns the first
// position where both hold, or -1 when none does among the first n&^31.
TEXT ·pairAVX2(SB), NOSPLIT, $0-40
	MOVQ pa+0(FP), SI
	MOVQ pb+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), R8
	VPBROADCASTB 0(R8), Y1
	VPBROADCASTB 1(R8), Y2
	VPBROADCASTB 2(R8), Y3
	VPBROADCASTB 3(R8), Y4
	XORQ AX, AX

loop:
	LEAQ 32(AX), DX
	CMPQ DX, CX
	JA   none
	VMOVDQU   (SI)(AX*1), Y5
	VPOR      Y1, Y5, Y5
	VPCMPEQB  Y2, Y5, Y5
	VMOVDQU   (DI)(AX*1), Y6
	VPOR      Y3, Y6, Y6
	VPCMPEQB  Y4, Y6, Y6
	VPAND     Y5, Y6, Y6
	VPMOVMSKB Y6, BX
	TESTL     BX, BX
	JNZ       found
	MOVQ      DX, AX
	JMP       loop

found:
	BSFL BX, BX
	ADDQ BX, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

none:
	MOVQ $-1, ret+32(FP)
	VZEROUPPER
	RET
