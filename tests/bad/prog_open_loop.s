dma SPM[0 : 16 / 1] <- DRAM[0 : 16 / 1]
loop 2
halt
