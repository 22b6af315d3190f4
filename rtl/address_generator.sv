// Walks a strided block of up to four dimensions, outermost first, one element address per
// cycle: the address sequence of arch::MemRef (sim/memory.cpp block_addresses), for the DMA
// engine and the operand fetch of the core. The dispatcher resolves loop steps and rings into
// `base` before a block starts.
module address_generator #(
    parameter int AW = 32,  // address width (elements, signed arithmetic)
    parameter int CW = 16   // dimension size width
) (
    input  logic                 clk,
    input  logic                 rst,
    input  logic                 start,           // load a block (ignored while busy)
    input  logic signed [AW-1:0] base,
    input  logic        [CW-1:0] sizes   [4],     // unused outer dimensions have size 1
    input  logic signed [AW-1:0] strides [4],
    output logic                 valid,           // `address` is an element of the block
    output logic signed [AW-1:0] address,
    output logic                 last             // with valid: the block's last element
);
  logic        [CW-1:0] size_q [4];
  logic signed [AW-1:0] stride_q [4];
  logic        [CW-1:0] index [4];
  logic signed [AW-1:0] row_base [4];  // the address at index[d] with all inner indices 0

  logic [3:0] at_end;     // dimension d is at its last index
  logic [3:0] inner_end;  // every dimension inside d is at its last index
  always_comb begin
    for (int d = 0; d < 4; d++) at_end[d] = index[d] == size_q[d] - 1'b1;
    inner_end[3] = 1'b1;
    inner_end[2] = at_end[3];
    inner_end[1] = at_end[3] & at_end[2];
    inner_end[0] = at_end[3] & at_end[2] & at_end[1];
    last = valid && (&at_end);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      valid <= 1'b0;
      address <= '0;
      for (int d = 0; d < 4; d++) begin
        size_q[d] <= '0;
        stride_q[d] <= '0;
        index[d] <= '0;
        row_base[d] <= '0;
      end
    end else if (!valid) begin
      if (start) begin
        valid <= 1'b1;
        address <= base;
        for (int d = 0; d < 4; d++) begin
          size_q[d] <= sizes[d];
          stride_q[d] <= strides[d];
          index[d] <= '0;
          row_base[d] <= base;
        end
      end
    end else if (last) begin
      valid <= 1'b0;
    end else begin
      // Odometer: the innermost dimension not at its end steps; every dimension inside it
      // restarts from the new position.
      for (int d = 3; d >= 0; d--) begin
        if (!at_end[d] && inner_end[d]) begin
          index[d] <= index[d] + 1'b1;
          row_base[d] <= row_base[d] + stride_q[d];
          address <= row_base[d] + stride_q[d];
          for (int e = d + 1; e < 4; e++) begin
            index[e] <= '0;
            row_base[e] <= row_base[d] + stride_q[d];
          end
        end
      end
    end
  end
endmodule
