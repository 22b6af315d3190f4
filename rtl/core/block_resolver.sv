// Resolves one block of an instruction word for the loop indices it was dispatched at:
// base + Σ step_j·i_j + ((Σ weight_j·i_j) mod ring)·ring_stride (arch::MemRef), with its sizes
// and strides. OPERAND: 0 destination, 1 first source, 2 second source.
module block_resolver
  import dfx_pkg::*;
#(
    parameter int OPERAND = 0
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  word_t  word,   // only this operand's fields are read
    /* verilator lint_on UNUSEDSIGNAL */
    input  index_t index,
    output block_t block,
    output logic   present  // the operand exists (level field non-zero)
);
  localparam int F = OPERAND0 + OPERAND * OPERAND_FIELDS;
  logic [31:0] head, ring, ring_sum, weights;
  always_comb begin
    head = `DFX_FIELD(word, F);
    present = head[7:0] != 8'd0;
    block.dram = head[7:0] == 8'd1;
    ring = {24'd0, head[15:8]};
    weights = `DFX_FIELD(word, F + 19);
    block.base = $signed(`DFX_FIELD(word, F + 1));
    ring_sum = '0;
    for (int j = 0; j < LOOPS; j++) begin
      block.base = block.base + $signed(`DFX_FIELD(word, F + 2 + j)) * $signed(index[j]);
      ring_sum = ring_sum + {28'd0, weights[4*j +: 4]} * index[j];
    end
    if (ring > 32'd1) block.base = block.base + $signed(ring_sum % ring) * $signed(`DFX_FIELD(word, F + 18));
    for (int d = 0; d < 4; d++) begin
      block.sizes[d] = `DFX_FIELD(word, F + 10 + d);
      block.strides[d] = `DFX_FIELD(word, F + 14 + d);
    end
  end
  logic unused;
  assign unused = ^head[31:16];
endmodule
