// One TPU-like core: an instruction memory the harness loads, an in-order dispatcher (one
// instruction per cycle; loops counted in hardware, never unrolled in memory) feeding 8-deep
// queues of the DMA, matrix and vector pipes, counting flags between the pipes, and an SPM of
// 32-bit words (int16 data, int32 accumulators) that every pipe reaches through its own ports
// (docs/rtl.md). The dispatcher itself is the scalar pipe: it runs flags addressed to it and
// barriers (it waits for its pipes to drain, raises at_barrier and continues on release).
module dfx_core
  import dfx_pkg::*;
#(
    parameter int N = 16,          // systolic array size
    parameter int LANES = 48,      // vector lanes
    parameter int PORT = 32,       // DMA words per cycle
    parameter int SPM_WORDS = 196608,
    parameter int IMEM_WORDS = 1024
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        imem_we,  // program load, before start
    input  logic [31:0] imem_addr,
    input  word_t       imem_data,
    input  logic        start,
    output logic        done,
    output logic        at_barrier,
    input  logic        barrier_release,
    output logic [31:0] busy_cycles [3],  // DMA, matrix, vector
    // DRAM port (see dma_engine)
    output logic        req_valid,
    input  logic        req_ready,
    output logic        req_write,
    output logic [31:0] req_addr,
    output logic [31:0] req_stride,
    output logic [31:0] req_count,
    output logic [31:0] req_data [PORT],
    output logic [63:0] req_tag,
    input  logic        resp_valid,
    input  logic [63:0] resp_tag,
    input  logic [31:0] resp_count,
    input  logic [31:0] resp_data [PORT],
    input  logic        wack_valid
);
  localparam int PIPES = 4;  // DMA, matrix, vector, scalar (arch::Pipe order)
  localparam int QUEUED = 3;
  localparam int SCALAR = 3;  // the dispatcher's index in the flag arrays

  // ---------------------------------------------------------------- dispatcher
  word_t       imem [IMEM_WORDS];
  logic [31:0] pc;
  logic [3:0]  depth;
  logic [31:0] loop_start [LOOPS];
  logic [31:0] loop_count [LOOPS];
  index_t      index;
  logic        running, halted;

  word_t   w;
  opcode_t op;
  logic [3:0] target;
  logic    q_full [QUEUED], q_push [QUEUED], q_valid [QUEUED], q_pop [QUEUED];
  word_t   q_word [QUEUED];
  index_t  q_index [QUEUED];
  logic    unit_busy [QUEUED];
  logic    pipes_idle;

  always_comb begin
    w = imem[pc[$clog2(IMEM_WORDS)-1:0]];
    op = `DFX_OPCODE(w);
    case (op)
      OP_DMA: target = PIPE_DMA;
      OP_MMA: target = PIPE_MATRIX;
      OP_VEC: target = PIPE_VECTOR;
      OP_SET: target = `DFX_FLAG_FROM(w);
      OP_WAIT: target = `DFX_FLAG_TO(w);
      default: target = PIPE_SCALAR;
    endcase
    pipes_idle = 1'b1;
    for (int p = 0; p < QUEUED; p++) pipes_idle &= !q_valid[p] && !unit_busy[p];
  end

  logic       set_req [PIPES], wait_req [PIPES];
  logic       wait_ok [PIPES] /* verilator split_var */;
  logic [3:0] set_to [PIPES], set_event [PIPES], wait_from [PIPES], wait_event [PIPES];
  logic       dispatching;
  logic [2:0] last_loop;  // the innermost open loop
  assign last_loop = 3'(depth - 4'd1);  // the dispatcher is not stalled and w is a work instruction
  always_comb begin
    dispatching = running && !halted;
    for (int p = 0; p < QUEUED; p++) q_push[p] = 1'b0;
    set_req[SCALAR] = 1'b0;
    wait_req[SCALAR] = 1'b0;
    set_to[SCALAR] = `DFX_FLAG_TO(w);
    set_event[SCALAR] = `DFX_FLAG_EVENT(w);
    wait_from[SCALAR] = `DFX_FLAG_FROM(w);
    wait_event[SCALAR] = `DFX_FLAG_EVENT(w);
    if (dispatching && target != PIPE_SCALAR) q_push[target[1:0]] = 1'b1;
    if (dispatching && target == PIPE_SCALAR && op == OP_SET) set_req[SCALAR] = 1'b1;
    if (dispatching && target == PIPE_SCALAR && op == OP_WAIT) wait_req[SCALAR] = 1'b1;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      pc <= '0;
      depth <= '0;
      index <= '0;
      running <= 1'b0;
      halted <= 1'b0;
      at_barrier <= 1'b0;
    end else begin
      if (imem_we) imem[imem_addr[$clog2(IMEM_WORDS)-1:0]] <= imem_data;
      if (start) running <= 1'b1;
      if (dispatching) begin
        case (op)
          OP_LOOP: begin
            loop_start[depth[2:0]] <= pc + 1;
            loop_count[depth[2:0]] <= `DFX_FIELD(w, 1);
            index[depth[2:0]] <= '0;
            depth <= depth + 1'b1;
            pc <= pc + 1;
          end
          OP_ENDLOOP: begin
            if (index[last_loop] + 1 < loop_count[last_loop]) begin
              index[last_loop] <= index[last_loop] + 1;
              pc <= loop_start[last_loop];
            end else begin
              index[last_loop] <= '0;
              depth <= depth - 1'b1;
              pc <= pc + 1;
            end
          end
          OP_HALT: halted <= 1'b1;
          OP_BARRIER: begin
            if (!at_barrier && pipes_idle) at_barrier <= 1'b1;
            if (at_barrier && barrier_release) begin
              at_barrier <= 1'b0;
              pc <= pc + 1;
            end
          end
          default: begin
            if (target == PIPE_SCALAR) begin
              if (op != OP_WAIT || wait_ok[SCALAR]) pc <= pc + 1;
            end else if (!q_full[target[1:0]]) begin
              pc <= pc + 1;
            end
          end
        endcase
      end
    end
  end
  assign done = halted && pipes_idle;
  logic unused;
  assign unused = ^imem_addr;

  // ---------------------------------------------------------------- pipes
  logic   issue [QUEUED];
  for (genvar p = 0; p < QUEUED; p++) begin : g_pipe
    pipe_queue queue (
        .clk, .rst, .push(q_push[p]), .push_word(w), .push_index(index), .full(q_full[p]),
        .head_valid(q_valid[p]), .head_word(q_word[p]), .head_index(q_index[p]), .pop(q_pop[p]));
    pipe_front front (
        .head_valid(q_valid[p]), .head_word(q_word[p]), .unit_busy(unit_busy[p]), .pop(q_pop[p]), .issue(issue[p]),
        .set_req(set_req[p]), .set_to(set_to[p]), .set_event(set_event[p]), .wait_req(wait_req[p]),
        .wait_from(wait_from[p]), .wait_event(wait_event[p]), .wait_ok(wait_ok[p]));
    always_ff @(posedge clk)
      if (rst) busy_cycles[p] <= '0;
      else if (unit_busy[p]) busy_cycles[p] <= busy_cycles[p] + 1;
  end

  flag_counters #(.PIPES(PIPES)) flags (
      .clk, .rst, .set_req, .set_to, .set_event, .wait_req, .wait_from, .wait_event, .wait_ok);

  logic [31:0] dma_rd_addr [PORT], dma_rd_data [PORT], dma_wr_addr [PORT], dma_wr_data [PORT];
  logic        dma_wr_en [PORT];
  dma_engine #(.PORT(PORT)) dma (
      .clk, .rst, .issue(issue[0]), .word(q_word[0]), .index(q_index[0]), .busy(unit_busy[0]),
      .rd_addr(dma_rd_addr), .rd_data(dma_rd_data), .wr_en(dma_wr_en), .wr_addr(dma_wr_addr), .wr_data(dma_wr_data),
      .req_valid, .req_ready, .req_write, .req_addr, .req_stride, .req_count, .req_data, .req_tag,
      .resp_valid, .resp_tag, .resp_count, .resp_data, .wack_valid);

  logic [31:0] mx_a_addr [N], mx_a_data [N], mx_b_addr [N], mx_b_data [N], mx_c_addr [N], mx_c_data [N];
  logic [31:0] mx_wr_addr [N], mx_wr_data [N];
  logic        mx_wr_en [N];
  matrix_unit #(.N(N)) matrix (
      .clk, .rst, .issue(issue[1]), .word(q_word[1]), .index(q_index[1]), .busy(unit_busy[1]),
      .a_addr(mx_a_addr), .a_data(mx_a_data), .b_addr(mx_b_addr), .b_data(mx_b_data), .c_addr(mx_c_addr), .c_data(mx_c_data),
      .wr_en(mx_wr_en), .wr_addr(mx_wr_addr), .wr_data(mx_wr_data));

  logic [31:0] vx_rd_addr [2*LANES], vx_rd_data [2*LANES], vx_wr_addr [LANES], vx_wr_data [LANES];
  logic        vx_wr_en [LANES];
  vector_unit #(.LANES(LANES), .PORT(PORT)) vector (
      .clk, .rst, .issue(issue[2]), .word(q_word[2]), .index(q_index[2]), .busy(unit_busy[2]),
      .rd_addr(vx_rd_addr), .rd_data(vx_rd_data), .wr_en(vx_wr_en), .wr_addr(vx_wr_addr), .wr_data(vx_wr_data));

  // ---------------------------------------------------------------- SPM
  // Every pipe has its own ports; the flags keep them off each other's data.
  logic [31:0] spm [SPM_WORDS];
  localparam int SW = $clog2(SPM_WORDS);
  always_comb begin
    for (int j = 0; j < PORT; j++) dma_rd_data[j] = spm[dma_rd_addr[j][SW-1:0]];
    for (int j = 0; j < N; j++) begin
      mx_a_data[j] = spm[mx_a_addr[j][SW-1:0]];
      mx_b_data[j] = spm[mx_b_addr[j][SW-1:0]];
      mx_c_data[j] = spm[mx_c_addr[j][SW-1:0]];
    end
    for (int j = 0; j < 2*LANES; j++) vx_rd_data[j] = spm[vx_rd_addr[j][SW-1:0]];
  end
  always_ff @(posedge clk) begin
    for (int j = 0; j < PORT; j++) if (dma_wr_en[j]) spm[dma_wr_addr[j][SW-1:0]] <= dma_wr_data[j];
    for (int j = 0; j < N; j++) if (mx_wr_en[j]) spm[mx_wr_addr[j][SW-1:0]] <= mx_wr_data[j];
    for (int j = 0; j < LANES; j++) if (vx_wr_en[j]) spm[vx_wr_addr[j][SW-1:0]] <= vx_wr_data[j];
  end
endmodule
