#include "textflag.h"

// FULLBLOCK checks the 32 starts AX..AX+31 for "/usr/", all five bytes:
// byte k of Y5 ends up 0xff exactly when data[AX+k:AX+k+5] == "/usr/"
// (one unaligned compare per needle byte, each load shifted by that
// byte's offset in the needle, ANDed). It jumps to found with the bit mask
// of the matches in CX, if any. It reads data[AX:AX+36].
#define FULLBLOCK \
	VPCMPEQB  0(SI)(AX*1), Y1, Y5; /* '/' at AX+k */ \
	VPCMPEQB  1(SI)(AX*1), Y2, Y6; /* 'u' at AX+k+1 */ \
	VPAND     Y6, Y5, Y5; \
	VPCMPEQB  2(SI)(AX*1), Y3, Y6; /* 's' at AX+k+2 */ \
	VPAND     Y6, Y5, Y5; \
	VPCMPEQB  3(SI)(AX*1), Y4, Y6; /* 'r' at AX+k+3 */ \
	VPAND     Y6, Y5, Y5; \
	VPCMPEQB  4(SI)(AX*1), Y1, Y6; /* '/' at AX+k+4 */ \
	VPAND     Y6, Y5, Y5; \
	VPMOVMSKB Y5, CX;              /* bit k of CX = byte k of Y5 */ \
	TESTL     CX, CX; \
	JNZ       found

// QUICKPAIR sets byte k of dst when data[AX+off+k+1] == 'u' and
// data[AX+off+k+4] == '/': two of the needle's bytes, together rare in
// binaries (about one start in 10^5 of libcufft), so a block with none is
// skipped after two compares instead of five.
#define QUICKPAIR(off, dst, tmp) \
	VPCMPEQB (off+1)(SI)(AX*1), Y2, dst; \
	VPCMPEQB (off+4)(SI)(AX*1), Y1, tmp; \
	VPAND    tmp, dst, dst

// func indexUsrAVX2(data []byte) (match, scanned int)
//
// The main loop takes 128 starts at a time and looks only for QUICKPAIR's
// candidates; the 128 starts of a block with one, and the last blocks of
// 32 starts that fit, get the full check.
TEXT ·indexUsrAVX2(SB), NOSPLIT, $0-40
	MOVQ data_base+0(FP), SI
	MOVQ data_len+8(FP), DX
	LEAQ -132(DX), R9     // R9 = the last AX whose 128-start block's loads (to AX+132) fit
	SUBQ $36, DX          // DX = the last AX whose 32-start block's loads (to AX+36) fit
	XORQ AX, AX           // AX = the block's first start

	// Y1..Y4 = 32 copies of '/', 'u', 's', 'r'.
	MOVQ $0x2f, BX
	MOVQ BX, X1
	VPBROADCASTB X1, Y1
	MOVQ $0x75, BX
	MOVQ BX, X2
	VPBROADCASTB X2, Y2
	MOVQ $0x73, BX
	MOVQ BX, X3
	VPBROADCASTB X3, Y3
	MOVQ $0x72, BX
	MOVQ BX, X4
	VPBROADCASTB X4, Y4

big:
	CMPQ AX, R9
	JGT  small                     // signed: R9 is negative for len < 132
	QUICKPAIR(0, Y5, Y6)
	QUICKPAIR(32, Y7, Y8)
	QUICKPAIR(64, Y9, Y10)
	QUICKPAIR(96, Y11, Y12)
	VPOR  Y7, Y5, Y5
	VPOR  Y11, Y9, Y9
	VPOR  Y9, Y5, Y5
	VPTEST Y5, Y5                  // ZF = no candidate in the 128 starts
	JNZ   check
	ADDQ  $128, AX
	JMP   big

check:
	// A candidate: check the 128 starts 32 at a time, then go on.
	FULLBLOCK
	ADDQ $32, AX
	FULLBLOCK
	ADDQ $32, AX
	FULLBLOCK
	ADDQ $32, AX
	FULLBLOCK
	ADDQ $32, AX
	JMP  big

small:
	// Fewer than 132 bytes left from AX: blocks of 32 starts while their
	// loads fit.
	CMPQ AX, DX
	JGT  notfound                  // signed: DX is negative for len < 36
	FULLBLOCK
	ADDQ $32, AX
	JMP  small

found:
	BSFL CX, CX                    // k of the first match (CX != 0)
	ADDQ CX, AX
	MOVQ AX, match+24(FP)
	MOVQ AX, scanned+32(FP)
	VZEROUPPER                     // avoid the SSE/AVX transition penalty in the caller
	RET

notfound:
	MOVQ $-1, match+24(FP)
	MOVQ AX, scanned+32(FP)        // the starts below AX were all looked at
	VZEROUPPER
	RET
