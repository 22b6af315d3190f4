set_flag dma -> matrix 0
wait_flag dma -> matrix 2
halt
