dma SPM[0 : 16 / 1] <- DRAM[900000000000 : 16 / 1]
halt
