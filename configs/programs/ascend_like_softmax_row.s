# Softmax of 16 rows of 64 scores on ascend_like's vector unit: GM → UB, row max, subtract,
# exp, row sum, divide, UB → GM (on the arch's engines: GM → UB on MTE2, UB → GM on MTE3). Row
# statistics are broadcast by the [16x64 / 1,0] stride.
.dtype fp16
.input S GM[0 : 16x64 / 64,1]
.output P GM[1024 : 16x64 / 64,1]
dma UB[0 : 16x64 / 64,1] <- GM[0 : 16x64 / 64,1]
set_flag mte2 -> vector 0
wait_flag mte2 -> vector 0
vec.rowmax UB[1024 : 16 / 1] <- UB[0 : 16x64 / 64,1]
vec.sub UB[2048 : 16x64 / 64,1] <- UB[0 : 16x64 / 64,1], UB[1024 : 16x64 / 1,0]
vec.exp UB[2048 : 16x64 / 64,1] <- UB[2048 : 16x64 / 64,1]
vec.rowsum UB[1024 : 16 / 1] <- UB[2048 : 16x64 / 64,1]
vec.div UB[3072 : 16x64 / 64,1] <- UB[2048 : 16x64 / 64,1], UB[1024 : 16x64 / 1,0]
set_flag vector -> mte3 1
wait_flag vector -> mte3 1
dma GM[1024 : 16x64 / 64,1] <- UB[3072 : 16x64 / 64,1]
halt
