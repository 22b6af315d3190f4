# Core 0 of a dataflow's two programs, given alone: core 1's share of C would not be computed.
.core 0 of 2
.input A DRAM[0 : 16 / 1]
.output C DRAM[16 : 16 / 1]
dma L1[0 : 16 / 1] <- DRAM[0 : 16 / 1]
dma DRAM[16 : 16 / 1] <- L1[0 : 16 / 1]
halt
