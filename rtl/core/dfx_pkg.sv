// Field access into a machine word (macros: see the note in the package).
`define DFX_FIELD(w, f) w[(f)*32 +: 32]
`define DFX_OPCODE(w) dfx_pkg::opcode_t'(w[3:0])
`define DFX_VEC_OP(w) w[7:4]
`define DFX_FLAG_FROM(w) w[11:8]
`define DFX_FLAG_TO(w) w[15:12]
`define DFX_FLAG_EVENT(w) w[19:16]
// A pipe's slot in the core's queues and flag counters: arch::Pipe ids 0-3 as they are,
// dma_out (8) in slot 4.
`define DFX_SLOT(p) ((p) == dfx_pkg::PIPE_DMA_OUT ? dfx_pkg::SLOT_DMA_OUT : (p))

// The machine word the core decodes (arch/isa_words.h holds the same layout): field macros,
// opcodes, pipes, and the resolved-block type every pipe shares (block_resolver.sv fills it).
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

  // The pipes of a TPU-like core (arch::Pipe ids): two DMA engines (in, and out to DRAM), the
  // matrix and vector units, and the dispatcher as the scalar pipe.
  localparam logic [3:0] PIPE_DMA = 4'd0, PIPE_MATRIX = 4'd1, PIPE_VECTOR = 4'd2, PIPE_SCALAR = 4'd3, PIPE_DMA_OUT = 4'd8;
  localparam int SLOTS = 5;  // queues and flag counters: dma, matrix, vector, scalar, dma_out
  localparam logic [3:0] SLOT_DMA_OUT = 4'd4;

  // A block with its loop steps and ring resolved: the walkers' input.
  typedef struct packed {
    logic               dram;    // in the chip's DRAM (level 0), else in this core's SPM
    logic signed [31:0] base;
    logic [3:0][31:0]   sizes;   // [3]: innermost (right-aligned, unused outer sizes are 1)
    logic [3:0][31:0]   strides;
  } block_t;

  // Fields are read with the DFX_* macros above, not functions: a function taking the 2048-bit
  // word makes Verilator copy (and clear) the word at every call site on every evaluation.
endpackage
