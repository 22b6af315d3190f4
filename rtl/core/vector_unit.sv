// The vector pipe's unit: element-wise ops on a row segment of every operand per cycle (shapes
// may differ; a stride of 0 broadcasts), as many elements as its LANES and its SPM read port
// allow: the port reads PORT words per cycle, shared by the sources (one source: min(LANES,
// PORT) elements, two: min(LANES, PORT / 2)), and row reductions that
// fold a row's segments into one value. Integer semantics of sim/values.h: results keep 32
// bits, division truncates (x / 0 = 0), scale is floor(x·imm / 65536), cast keeps the low 16
// bits, exp truncates e^x (a table for 0 <= x <= 43; 0 below and above, where e^x < 1 or no
// longer fits). Results are written DEPTH cycles after their operands are read (the SystemC
// model's vector depths: 4, 12 for exp and div, 4 + log2(lanes) for reductions).
module vector_unit
  import dfx_pkg::*;
#(
    parameter int LANES = 48,
    parameter int PORT = 32   // SPM read words per cycle
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        issue,
    input  word_t       word,
    input  index_t      index,
    output logic        busy,
    output logic [31:0] rd_addr [2*LANES],  // first source, second source
    input  logic [31:0] rd_data [2*LANES],
    output logic        wr_en   [LANES],
    output logic [31:0] wr_addr [LANES],
    output logic [31:0] wr_data [LANES]
);
  // arch::VecOp
  localparam logic [3:0] ADD = 0, SUB = 1, MUL = 2, DIV = 3, MAX = 4, MIN = 5, EXP = 6, SCALE = 7, COPY = 8,
                         ROWSUM = 9, ROWMAX = 10, CAST = 11;
  /* verilator lint_off UNUSEDPARAM */
  localparam logic [3:0] COPY_ = COPY;  // the default case
  /* verilator lint_on UNUSEDPARAM */
  localparam int MAX_DEPTH = 16;
  localparam int TREE = $clog2(LANES);

  logic signed [31:0] exp_table [44];
  initial for (int x = 0; x < 44; x++) exp_table[x] = 32'(longint'($floor($exp(real'(x)))));

  function automatic logic signed [31:0] apply(input logic [3:0] kind, input logic signed [31:0] x,
                                               input logic signed [31:0] y, input logic signed [31:0] imm);
    logic signed [63:0] wide;
    case (kind)
      ADD: return x + y;
      SUB: return x - y;
      MUL: return x * y;
      DIV: return y == 0 ? '0 : x / y;
      MAX: return x > y ? x : y;
      MIN: return x < y ? x : y;
      EXP: return x < 0 || x > 43 ? '0 : exp_table[x[5:0]];
      SCALE: begin
        wide = 64'(x) * 64'(imm);
        wide = wide >>> 16;
        return wide[31:0];
      end
      CAST: return 32'(signed'(x[15:0]));
      default: return x;  // COPY
    endcase
  endfunction

  function automatic int depth_of(input logic [3:0] kind);
    if (kind == ROWSUM || kind == ROWMAX) return 4 + TREE;
    if (kind == EXP || kind == DIV) return 12;
    return 4;
  endfunction

  logic [3:0]  vop;
  logic [31:0] rate;  // elements per cycle
  logic signed [31:0] imm;
  logic        reduce, has_b, walking, row_start;
  logic [4:0]  drain;  // cycles left for the last results to come out
  block_t dst, a, b;
  logic dst_present, a_present, b_present;
  block_resolver #(.OPERAND(0)) resolve_dst (.word, .index, .block(dst), .present(dst_present));
  block_resolver #(.OPERAND(1)) resolve_a (.word, .index, .block(a), .present(a_present));
  block_resolver #(.OPERAND(2)) resolve_b (.word, .index, .block(b), .present(b_present));

  logic [31:0] dst_take, a_take, b_take;
  logic        dst_valid, a_valid, b_valid;
  logic signed [31:0] dst_address, a_address, b_address, dst_stride, a_stride, b_stride;
  logic [31:0] dst_left, a_left, b_left;
  logic        dst_last, a_last, b_last;
  block_walker dst_walk (.clk, .rst, .start(issue), .base(dst.base), .sizes(dst.sizes), .strides(dst.strides),
      .take(dst_take), .valid(dst_valid), .address(dst_address), .stride(dst_stride), .row_left(dst_left), .last_row(dst_last));
  block_walker a_walk (.clk, .rst, .start(issue), .base(a.base), .sizes(a.sizes), .strides(a.strides),
      .take(a_take), .valid(a_valid), .address(a_address), .stride(a_stride), .row_left(a_left), .last_row(a_last));
  block_walker b_walk (.clk, .rst, .start(issue && b_present), .base(b.base),
      .sizes(b.sizes), .strides(b.strides), .take(b_take), .valid(b_valid), .address(b_address), .stride(b_stride),
      .row_left(b_left), .last_row(b_last));

  // One cycle's results, written DEPTH cycles later: a ring of slots, the newest at `head`.
  // The lanes compute inside the clocked block, only while the unit walks (an idle unit costs
  // the simulation nothing).
  // Kept out of traces: two-dimensional unpacked arrays do not trace in this Verilator (5.006).
  /* verilator tracing_off */
  logic        slot_en   [MAX_DEPTH][LANES];
  logic [31:0] slot_addr [MAX_DEPTH][LANES];
  logic [31:0] slot_data [MAX_DEPTH][LANES];
  /* verilator tracing_on */
  logic       slot_live [MAX_DEPTH];  // written by the current instruction
  logic [3:0] head, out;
  logic [4:0] depth;
  assign out = head - depth[3:0];

  logic [31:0] piece;
  logic        stepping;
  logic signed [31:0] running;
  always_comb begin
    piece = a_left < rate ? a_left : rate;
    if (!reduce && dst_left < piece) piece = dst_left;
    if (!reduce && has_b && b_left < piece) piece = b_left;
    stepping = walking && a_valid;
    a_take = stepping ? piece : '0;
    b_take = stepping && !reduce && has_b ? piece : '0;
    dst_take = !stepping ? '0 : reduce ? 32'(piece == a_left) : piece;
  end
  always_comb
    for (int j = 0; j < LANES; j++) begin
      rd_addr[j] = a_address + j * a_stride;
      rd_addr[LANES + j] = b_address + j * b_stride;
    end
  always_comb
    for (int j = 0; j < LANES; j++) begin
      wr_en[j] = busy && slot_live[out] && slot_en[out][j];
      wr_addr[j] = slot_addr[out][j];
      wr_data[j] = slot_data[out][j];
    end

  always_ff @(posedge clk) begin
    logic signed [31:0] folded;
    if (rst) begin
      busy <= 1'b0;
      walking <= 1'b0;
      drain <= '0;
      depth <= 5'd1;
      head <= '0;
      for (int d = 0; d < MAX_DEPTH; d++) slot_live[d] <= 1'b0;
    end else if (issue) begin
      busy <= 1'b1;
      walking <= 1'b1;
      row_start <= 1'b1;
      vop <= `DFX_VEC_OP(word);
      imm <= `DFX_FIELD(word, 2);
      reduce <= `DFX_VEC_OP(word) == ROWSUM || `DFX_VEC_OP(word) == ROWMAX;
      has_b <= b_present;
      rate <= b_present ? 32'(LANES < PORT / 2 ? LANES : PORT / 2)
                                                              : 32'(LANES < PORT ? LANES : PORT);
      depth <= 5'(depth_of(`DFX_VEC_OP(word)));
      for (int d = 0; d < MAX_DEPTH; d++) slot_live[d] <= 1'b0;
    end else if (busy) begin
      for (int j = 0; j < LANES; j++) slot_en[head][j] <= 1'b0;
      if (stepping && reduce) begin
        // The segment folds into the row's running value; at the row's end it goes out.
        folded = row_start ? $signed(rd_data[0]) : running;
        for (int j = 0; j < LANES; j++)
          if ((j > 0 || !row_start) && 32'(j) < piece)
            folded = vop == ROWMAX ? ($signed(rd_data[j]) > folded ? $signed(rd_data[j]) : folded) : folded + $signed(rd_data[j]);
        running <= folded;
        row_start <= piece == a_left;
        slot_en[head][0] <= piece == a_left;
        slot_addr[head][0] <= dst_address;
        slot_data[head][0] <= folded;
      end else if (stepping) begin
        for (int j = 0; j < LANES; j++) begin
          slot_en[head][j] <= 32'(j) < piece;
          slot_addr[head][j] <= dst_address + j * dst_stride;
          slot_data[head][j] <= apply(vop, rd_data[j], has_b ? rd_data[LANES + j] : '0, imm);
        end
      end
      slot_live[head] <= 1'b1;
      head <= head + 1'b1;
      if (walking && !a_valid) begin
        walking <= 1'b0;
        drain <= depth;
      end else if (!walking) begin
        if (drain <= 5'd1) busy <= 1'b0;
        drain <= drain - 1'b1;
      end
    end
  end

  logic unused;
  assign unused = ^{dst_valid, b_valid, dst_last, a_last, b_last, dst.dram, a.dram, b.dram, dst_present, a_present};
endmodule
