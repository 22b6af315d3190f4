# Each pipe waits for the other before setting its own flag: a deadlock only a run can find.
wait_flag matrix -> dma 1
set_flag dma -> matrix 0
wait_flag dma -> matrix 0
set_flag matrix -> dma 1
halt
