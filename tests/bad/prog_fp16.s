# A floating-point program: the SystemC model runs it, the RTL core (int16 only) refuses it.
.dtype fp16
dma SPM[0 : 16 / 1] <- DRAM[0 : 16 / 1]
halt
