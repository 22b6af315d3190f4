// The matrix pipe's unit: C (+)= A·B for A m×k, B k×n in the SPM, on the N×N systolic array in
// N×N output blocks that stream back to back, one every P = max(k, N) cycles. A stream position
// s (block s / P, step s mod P) enters row r of the array at cycle s + r and column c at s + c;
// the tuple describing it travels down a shift register, so row r reads A at the position it
// sees. A block's results move to the shadow registers when the next block's first operand
// passes (an empty block after the last one flushes it), and drain one row per cycle N cycles
// behind the stream, added to the old C when the mma accumulates. Busy for blocks·P + 2N cycles.
module matrix_unit
  import dfx_pkg::*;
#(
    parameter int N = 16
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        issue,
    input  word_t       word,
    input  index_t      index,
    output logic        busy,
    output logic [31:0] a_addr [N],  // A: one element per row of the array
    input  logic [31:0] a_data [N],
    output logic [31:0] b_addr [N],  // B: one element per column
    input  logic [31:0] b_data [N],
    output logic [31:0] c_addr [N],  // the old C of the draining row, when accumulating
    input  logic [31:0] c_data [N],
    output logic        wr_en   [N],
    output logic [31:0] wr_addr [N],
    output logic [31:0] wr_data [N]
);
  typedef struct packed {
    logic        on;
    logic [31:0] step;   // position within the block, 0 .. P-1
    logic [31:0] block;  // 0 .. blocks (the last is the flush)
    logic [15:0] bi, bj, prev_bi, prev_bj;
  } position_t;

  block_t a_blk, b_blk, c_blk, a_new, b_new, c_new;
  logic   a_present, b_present, c_present, accumulate_new;
  block_resolver #(.OPERAND(1)) resolve_a (.word, .index, .block(a_new), .present(a_present));
  block_resolver #(.OPERAND(2)) resolve_b (.word, .index, .block(b_new), .present(b_present));
  block_resolver #(.OPERAND(0)) resolve_c (.word, .index, .block(c_new), .present(c_present));
  // `+=` unless every loop of the init mask (field 2) is at iteration 0 (arch::accumulates).
  always_comb begin
    logic all_first;
    all_first = `DFX_FIELD(word, 2) != '0;
    for (int j = 0; j < LOOPS; j++)
      if (word[2*32 + j] && index[j] != '0) all_first = 1'b0;
    accumulate_new = word[20] && !all_first;
  end
  logic [31:0] m, n, k, period, blocks, blocks_n;
  logic accumulate;
  position_t stage [N+1];  // stage d: the stream position d cycles ago

  // Operand shapes are right-aligned: a 2-D block has its rows in [2] and columns in [3].
  always_ff @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0;
      for (int d = 0; d <= N; d++) stage[d] <= '0;
    end else if (issue) begin
      a_blk <= a_new;
      b_blk <= b_new;
      c_blk <= c_new;
      accumulate <= accumulate_new;
      m <= a_new.sizes[2];
      k <= a_new.sizes[3];
      n <= b_new.sizes[3];
      blocks_n <= (b_new.sizes[3] + N - 1) / N;
      blocks <= ((a_new.sizes[2] + N - 1) / N) * ((b_new.sizes[3] + N - 1) / N);
      period <= a_new.sizes[3] > 32'(N) ? a_new.sizes[3] : 32'(N);
      busy <= 1'b1;
      stage[0] <= '{on: 1'b1, step: '0, block: '0, bi: '0, bj: '0, prev_bi: '0, prev_bj: '0};
      for (int d = 1; d <= N; d++) stage[d] <= '0;
    end else if (busy) begin
      // Advance the stream at stage 0; older positions move down the shift register.
      stage[0].step <= stage[0].step + 1;
      if (stage[0].step == period - 1) begin
        stage[0].step <= '0;
        stage[0].block <= stage[0].block + 1;
        stage[0].prev_bi <= stage[0].bi;
        stage[0].prev_bj <= stage[0].bj;
        if (32'(stage[0].bj) == blocks_n - 1) begin
          stage[0].bj <= '0;
          stage[0].bi <= stage[0].bi + 1'b1;
        end else begin
          stage[0].bj <= stage[0].bj + 1'b1;
        end
      end
      for (int d = 1; d <= N; d++) stage[d] <= stage[d-1];
      if (draining && stage[N].block == blocks && stage[N].step == 32'(N - 1)) busy <= 1'b0;
    end
  end

  // Feed: row r and column c see the position of stage r and stage c.
  logic signed [15:0] a_in [N], b_in [N];
  logic               first_in [N];
  logic [31:0] row_of [N], col_of [N];
  logic        a_live [N], b_live [N];
  always_comb begin
    for (int r = 0; r < N; r++) begin
      row_of[r] = 32'(stage[r].bi) * N + r;
      a_live[r] = busy && stage[r].on && stage[r].block < blocks && stage[r].step < k && row_of[r] < m;
      first_in[r] = busy && stage[r].on && stage[r].step == '0 && stage[r].block <= blocks;
      a_addr[r] = a_blk.base + row_of[r] * a_blk.strides[2] + stage[r].step * a_blk.strides[3];
    end
    for (int c = 0; c < N; c++) begin
      col_of[c] = 32'(stage[c].bj) * N + c;
      b_live[c] = busy && stage[c].on && stage[c].block < blocks && stage[c].step < k && col_of[c] < n;
      b_addr[c] = b_blk.base + stage[c].step * b_blk.strides[2] + col_of[c] * b_blk.strides[3];
    end
  end
  // Operands are the low 16 bits of what the SPM holds (sim/values.h to_operand).
  always_comb begin
    for (int r = 0; r < N; r++) a_in[r] = a_live[r] ? a_data[r][15:0] : '0;
    for (int c = 0; c < N; c++) b_in[c] = b_live[c] ? b_data[c][15:0] : '0;
  end

  // Kept out of traces: two-dimensional unpacked arrays do not trace in this Verilator (5.006).
  /* verilator tracing_off */
  /* verilator lint_off UNUSEDSIGNAL */
  // Results are read from the shadows only; public keeps this Verilator (5.006) from dropping
  // the unused port of an un-inlined instance while still writing it.
  logic signed [31:0] acc [N][N] /*verilator public_flat_rd*/;
  /* verilator lint_on UNUSEDSIGNAL */
  logic signed [31:0] shadow [N][N];
  /* verilator tracing_on */
  systolic_array #(.N(N)) array (
      .clk, .rst, .en(busy), .clear(1'b0), .a_in, .b_in, .first_in, .acc, .shadow);

  // Drain: N cycles behind the stream, step r < N of block b + 1 reads row r of block b.
  logic        draining;
  logic [31:0] drain_row;
  always_comb begin
    draining = busy && stage[N].on && stage[N].block != '0 && stage[N].step < 32'(N);
    drain_row = 32'(stage[N].prev_bi) * N + stage[N].step;
    for (int c = 0; c < N; c++) begin
      wr_addr[c] = c_blk.base + drain_row * c_blk.strides[2] + (32'(stage[N].prev_bj) * N + c) * c_blk.strides[3];
      c_addr[c] = c_blk.base + drain_row * c_blk.strides[2] + (32'(stage[N].prev_bj) * N + c) * c_blk.strides[3];
      wr_en[c] = draining && drain_row < m && 32'(stage[N].prev_bj) * N + c < n;
    end
  end
  always_comb
    for (int c = 0; c < N; c++) wr_data[c] = shadow[stage[N].step[$clog2(N)-1:0]][c] + (accumulate ? c_data[c] : '0);

  logic unused;
  assign unused = ^{a_present, b_present, c_present, a_blk.dram, b_blk.dram, c_blk.dram, a_blk.sizes, b_blk.sizes, c_blk.sizes, a_blk.strides[1:0],
                    b_blk.strides[1:0], c_blk.strides[1:0], a_data[0][31:16]};
endmodule
