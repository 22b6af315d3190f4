# C[32×32] = A[32×256] · B[256×32] on tpu_like, K in four steps of 64, each block in its own
# buffer so that the DMA may run ahead of the array; flags order the pipes (the result leaves on
# dma_out, tpu_like's engine for transfers to DRAM).
# DRAM: A at 0 (row-major 32×256), B at 8192 (256×32), C at 16384.
# SPM: A blocks (32×64) at 0, 2048, 4096, 6144; B blocks (64×32) at 8192 + 2048·i; C at 16384.
# The product is integer: int16 operands, int32 accumulator (the default .dtype int16).
.input A DRAM[0 : 32x256 / 256,1]
.input B DRAM[8192 : 256x32 / 32,1]
.output C DRAM[16384 : 32x32 / 32,1]
dma SPM[0 : 32x64 / 64,1] <- DRAM[0 : 32x64 / 256,1]
dma SPM[8192 : 64x32 / 32,1] <- DRAM[8192 : 64x32 / 32,1]
set_flag dma -> matrix 0
wait_flag dma -> matrix 0
mma SPM[16384 : 32x32 / 32,1] = SPM[0 : 32x64 / 64,1] * SPM[8192 : 64x32 / 32,1]
loop 3
  dma SPM[2048 +2048*i0 : 32x64 / 64,1] <- DRAM[64 +64*i0 : 32x64 / 256,1]
  dma SPM[10240 +2048*i0 : 64x32 / 32,1] <- DRAM[10240 +2048*i0 : 64x32 / 32,1]
  set_flag dma -> matrix 0
  wait_flag dma -> matrix 0
  mma SPM[16384 : 32x32 / 32,1] += SPM[2048 +2048*i0 : 32x64 / 64,1] * SPM[10240 +2048*i0 : 64x32 / 32,1]
endloop
set_flag matrix -> dma_out 1
wait_flag matrix -> dma_out 1
dma DRAM[16384 : 32x32 / 32,1] <- SPM[16384 : 32x32 / 32,1]
halt
