#include "textflag.h"

// FOLD folds register r over the distance whose constants are in X0
// (lo: for r.lo, hi: for r.hi), using t as scratch.
#define FOLD(r, t) \
	MOVOA r, t; \
	PCLMULQDQ $0x00, X0, r; \
	PCLMULQDQ $0x11, X0, t; \
	PXOR t, r

// func foldCLMUL(crc uint64, p []byte, k *[4]uint64) (lo, hi uint64)
// len(p) >= 64, len(p)%16 == 0.
TEXT ·foldCLMUL(SB), NOSPLIT, $0-56
	MOVQ crc+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ k+32(FP), DX

	MOVOU 0(SI), X1
	MOVOU 16(SI), X2
	MOVOU 32(SI), X3
	MOVOU 48(SI), X4
	MOVQ AX, X0
	PXOR X0, X1
	ADDQ $64, SI
	SUBQ $64, CX

	MOVOU 0(DX), X0 // fold over 512 bits
	CMPQ CX, $64
	JB   fold4

loop64:
	FOLD(X1, X5)
	FOLD(X2, X6)
	FOLD(X3, X7)
	FOLD(X4, X8)
	MOVOU 0(SI), X9
	MOVOU 16(SI), X10
	MOVOU 32(SI), X11
	MOVOU 48(SI), X12
	PXOR  X9, X1
	PXOR  X10, X2
	PXOR  X11, X3
	PXOR  X12, X4
	ADDQ  $64, SI
	SUBQ  $64, CX
	CMPQ  CX, $64
	JAE   loop64

fold4:
	MOVOU 16(DX), X0 // fold over 128 bits
	FOLD(X1, X5)
	PXOR X2, X1
	FOLD(X1, X5)
	PXOR X3, X1
	FOLD(X1, X5)
	PXOR X4, X1

	CMPQ CX, $16
	JB   done

loop16:
	FOLD(X1, X5)
	MOVOU 0(SI), X9
	PXOR  X9, X1
	ADDQ  $16, SI
	SUBQ  $16, CX
	CMPQ  CX, $16
	JAE   loop16

done:
	MOVQ   X1, AX
	PSHUFD $0xEE, X1, X2
	MOVQ   X2, BX
	MOVQ   AX, lo+40(FP)
	MOVQ   BX, hi+48(FP)
	RET
