// Walks a strided block of up to four dimensions (outermost first) in the order of
// arch::MemRef's elements (sim/memory.cpp block_addresses), a row segment at a time: it shows
// where the rest of the current innermost row starts and how many elements it has left; the
// unit using it consumes `take` of them per cycle (0 holds). A DMA engine takes up to its port
// width, an operand fetch one element. The dispatcher resolves loop steps and rings into `base`.
module block_walker #(
    parameter int AW = 32  // address and size width (elements, signed arithmetic)
) (
    input  logic                 clk,
    input  logic                 rst,
    input  logic                 start,           // load a block (ignored while busy)
    input  logic signed [AW-1:0] base,
    input  logic [3:0]  [AW-1:0] sizes,           // [0] outermost; unused outer sizes are 1
    input  logic [3:0]  [AW-1:0] strides,
    input  logic        [AW-1:0] take,            // elements consumed this cycle, <= row_left
    output logic                 valid,           // a segment is available
    output logic signed [AW-1:0] address,         // its first element
    output logic signed [AW-1:0] stride,          // between its elements
    output logic        [AW-1:0] row_left,        // its length (to the end of the row)
    output logic                 last_row         // with valid: no row follows this one
);
  logic        [AW-1:0] size_q [4];
  logic signed [AW-1:0] stride_q [4];
  logic        [AW-1:0] index [4];     // index[3]: position in the row
  logic signed [AW-1:0] row_base [3];  // the address at index[d] with all inner indices 0

  logic [2:0] at_end;     // outer dimension d is at its last index
  logic [2:0] inner_end;  // every outer dimension inside d is at its last index
  always_comb begin
    for (int d = 0; d < 3; d++) at_end[d] = index[d] == size_q[d] - 1'b1;
    inner_end[2] = 1'b1;
    inner_end[1] = at_end[2];
    inner_end[0] = at_end[2] & at_end[1];
    last_row = valid && (&at_end);
    row_left = size_q[3] - index[3];
    stride = stride_q[3];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      valid <= 1'b0;
      address <= '0;
      for (int d = 0; d < 4; d++) begin
        size_q[d] <= '0;
        stride_q[d] <= '0;
        index[d] <= '0;
      end
      for (int d = 0; d < 3; d++) row_base[d] <= '0;
    end else if (!valid) begin
      if (start) begin
        valid <= 1'b1;
        address <= base;
        for (int d = 0; d < 4; d++) begin
          size_q[d] <= sizes[d];
          stride_q[d] <= $signed(strides[d]);
          index[d] <= '0;
        end
        for (int d = 0; d < 3; d++) row_base[d] <= base;
      end
    end else if (take != '0) begin
      if (take < row_left) begin
        index[3] <= index[3] + take;
        address <= address + $signed(take) * stride_q[3];
      end else if (last_row) begin
        valid <= 1'b0;
      end else begin
        // Next row, odometer-style: the innermost outer dimension not at its end steps; the
        // dimensions inside it restart from the new position.
        index[3] <= '0;
        for (int d = 2; d >= 0; d--) begin
          if (!at_end[d] && inner_end[d]) begin
            index[d] <= index[d] + 1'b1;
            row_base[d] <= row_base[d] + stride_q[d];
            address <= row_base[d] + stride_q[d];
            for (int e = d + 1; e < 3; e++) begin
              index[e] <= '0;
              row_base[e] <= row_base[d] + stride_q[d];
            end
          end
        end
      end
    end
  end
endmodule
