// The machine word the core decodes (arch/isa_words.h holds the same layout) and the helpers
// every pipe shares: field extraction and resolving a block's address for loop indices.
package dfx_pkg;
  localparam int FIELDS = 64;  // 32-bit fields per instruction word
  localparam int LOOPS = 8;    // loop nesting a word can address
  localparam int OPERAND0 = 4; // first block's field; blocks are dst, a, b
  localparam int OPERAND_FIELDS = 20;

  typedef logic [FIELDS*32-1:0] word_t;
  typedef logic [LOOPS-1:0][31:0] index_t;  // loop indices, outermost first

  typedef enum logic [3:0] {
    OP_DMA = 4'd1, OP_MMA = 4'd2, OP_VEC = 4'd3, OP_SET = 4'd4, OP_WAIT = 4'd5,
    OP_LOOP = 4'd6, OP_ENDLOOP = 4'd7, OP_HALT = 4'd8, OP_BARRIER = 4'd9
  } opcode_t;

  // The pipes of a TPU-like core (arch::Pipe's first four).
  localparam logic [3:0] PIPE_DMA = 4'd0, PIPE_MATRIX = 4'd1, PIPE_VECTOR = 4'd2, PIPE_SCALAR = 4'd3;

  // A block with its loop steps and ring resolved: the walkers' input.
  typedef struct packed {
    logic               dram;    // in the chip's DRAM (level 0), else in this core's SPM
    logic signed [31:0] base;
    logic [3:0][31:0]   sizes;   // [3]: innermost (right-aligned, unused outer sizes are 1)
    logic [3:0][31:0]   strides;
  } block_t;

  // Helpers take the whole word and use a few of its bits.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [31:0] field(input word_t w, input int f);
    return w[f*32 +: 32];
  endfunction

  function automatic opcode_t opcode(input word_t w);
    return opcode_t'(w[3:0]);
  endfunction

  // The from / to pipes and the event of a flag instruction.
  function automatic logic [3:0] flag_from(input word_t w); return w[11:8]; endfunction
  function automatic logic [3:0] flag_to(input word_t w); return w[15:12]; endfunction
  function automatic logic [3:0] flag_event(input word_t w); return w[19:16]; endfunction
  function automatic logic [3:0] vec_op(input word_t w); return w[7:4]; endfunction

  // base + Σ step_j·i_j + ((Σ weight_j·i_j) mod ring)·ring_stride (arch::MemRef).
  function automatic block_t resolve(input word_t w, input int operand, input index_t idx);
    block_t b;
    int f;
    logic [31:0] head, ring, ring_sum, weights;
    f = OPERAND0 + operand * OPERAND_FIELDS;
    head = field(w, f);
    b.dram = head[7:0] == 8'd1;
    b.base = $signed(field(w, f + 1));
    ring = {24'd0, head[15:8]};
    weights = field(w, f + 19);
    ring_sum = '0;
    for (int j = 0; j < LOOPS; j++) begin
      b.base = b.base + $signed(field(w, f + 2 + j)) * $signed(idx[j]);
      ring_sum = ring_sum + {28'd0, weights[4*j +: 4]} * idx[j];
    end
    if (ring > 32'd1) b.base = b.base + $signed(ring_sum % ring) * $signed(field(w, f + 18));
    for (int d = 0; d < 4; d++) begin
      b.sizes[d] = field(w, f + 10 + d);
      b.strides[d] = field(w, f + 14 + d);
    end
    return b;
  endfunction

  // Whether an mma adds to its accumulator here: `+=` unless every loop of its init mask is at
  // iteration 0 (arch::accumulates).
  function automatic logic accumulates(input word_t w, input index_t idx);
    logic all_first;
    logic [31:0] mask;
    mask = field(w, 2);
    all_first = mask != '0;
    for (int j = 0; j < LOOPS; j++)
      if (mask[j] && idx[j] != '0) all_first = 1'b0;
    return w[20] && !all_first;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
endpackage
