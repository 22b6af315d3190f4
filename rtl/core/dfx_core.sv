// One TPU-like core: an instruction memory the harness loads, an in-order dispatcher (one
// instruction per cycle; loops counted in hardware, never unrolled in memory) feeding 8-deep
// queues of two DMA pipes (dma brings data in or copies within the SPM, dma_out writes to
// DRAM), the matrix and the vector pipe, counting flags between the pipes, and an SPM of
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
    output logic [31:0] busy_cycles [4],  // dma, matrix, vector, dma_out
    // DRAM ports of the two DMA engines, [0] dma and [1] dma_out (see dma_engine)
    output logic        req_valid [2],
    input  logic        req_ready [2],
    output logic        req_write [2],
    output logic [31:0] req_addr [2],
    output logic [31:0] req_stride [2],
    output logic [31:0] req_count [2],
    output logic [31:0] req_data [2][PORT],
    output logic [63:0] req_tag [2],
    input  logic        resp_valid [2],
    input  logic [63:0] resp_tag,
    input  logic [31:0] resp_count,
    input  logic [31:0] resp_data [PORT],
    input  logic        wack_valid [2]
);
  localparam int PIPES = SLOTS;  // dma, matrix, vector, scalar, dma_out (dfx_pkg slots)
  localparam int SCALAR = 3;     // the dispatcher's slot: it has no queue

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
  logic    q_full [PIPES], q_push [PIPES], q_valid [PIPES], q_pop [PIPES];
  word_t   q_word [PIPES];
  index_t  q_index [PIPES];
  logic    unit_busy [PIPES];
  logic    pipes_idle;

  logic to_dram;
  always_comb begin
    w = imem[pc[$clog2(IMEM_WORDS)-1:0]];
    op = `DFX_OPCODE(w);
    // A transfer into DRAM (its destination block's level field holds level 0 + 1) goes to dma_out.
    to_dram = w[OPERAND0*32 +: 8] == 8'd1;
    case (op)
      OP_DMA: target = to_dram ? SLOT_DMA_OUT : PIPE_DMA;
      OP_MMA: target = PIPE_MATRIX;
      OP_VEC: target = PIPE_VECTOR;
      OP_SET: target = `DFX_SLOT(`DFX_FLAG_FROM(w));
      OP_WAIT: target = `DFX_SLOT(`DFX_FLAG_TO(w));
      default: target = PIPE_SCALAR;
    endcase
    pipes_idle = 1'b1;
    for (int p = 0; p < PIPES; p++)
      if (p != SCALAR) pipes_idle &= !q_valid[p] && !unit_busy[p];
  end

  logic       set_req [PIPES], wait_req [PIPES];
  logic       wait_ok [PIPES] /* verilator split_var */;
  logic [3:0] set_to [PIPES], set_event [PIPES], wait_from [PIPES], wait_event [PIPES];
  logic       dispatching;
  logic [2:0] last_loop;  // the innermost open loop
  assign last_loop = 3'(depth - 4'd1);  // the dispatcher is not stalled and w is a work instruction
  always_comb begin
    dispatching = running && !halted;
    for (int p = 0; p < PIPES; p++) q_push[p] = 1'b0;
    set_req[SCALAR] = 1'b0;
    wait_req[SCALAR] = 1'b0;
    set_to[SCALAR] = `DFX_SLOT(`DFX_FLAG_TO(w));
    set_event[SCALAR] = `DFX_FLAG_EVENT(w);
    wait_from[SCALAR] = `DFX_SLOT(`DFX_FLAG_FROM(w));
    wait_event[SCALAR] = `DFX_FLAG_EVENT(w);
    if (dispatching && target != PIPE_SCALAR) q_push[target[2:0]] = 1'b1;
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
            end else if (!q_full[target[2:0]]) begin
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
  logic   issue [PIPES];
  for (genvar p = 0; p < PIPES; p++) begin : g_pipe
    if (p == SCALAR) begin : g_dispatcher  // flags only, run by the dispatcher above
      assign q_full[p] = 1'b0;
      assign q_valid[p] = 1'b0;
      assign q_word[p] = '0;
      assign q_index[p] = '0;
      assign q_pop[p] = 1'b0;
      assign unit_busy[p] = 1'b0;
      assign issue[p] = 1'b0;
    end else begin : g_queued
      localparam int BUSY = p == int'(SLOT_DMA_OUT) ? 3 : p;  // busy_cycles order
      pipe_queue queue (
          .clk, .rst, .push(q_push[p]), .push_word(w), .push_index(index), .full(q_full[p]),
          .head_valid(q_valid[p]), .head_word(q_word[p]), .head_index(q_index[p]), .pop(q_pop[p]));
      pipe_front front (
          .head_valid(q_valid[p]), .head_word(q_word[p]), .unit_busy(unit_busy[p]), .pop(q_pop[p]), .issue(issue[p]),
          .set_req(set_req[p]), .set_to(set_to[p]), .set_event(set_event[p]), .wait_req(wait_req[p]),
          .wait_from(wait_from[p]), .wait_event(wait_event[p]), .wait_ok(wait_ok[p]));
      always_ff @(posedge clk)
        if (rst) busy_cycles[BUSY] <= '0;
        else if (unit_busy[p]) busy_cycles[BUSY] <= busy_cycles[BUSY] + 1;
    end
  end

  flag_counters #(.PIPES(PIPES)) flags (
      .clk, .rst, .set_req, .set_to, .set_event, .wait_req, .wait_from, .wait_event, .wait_ok);

  // The two DMA engines: [0] on the dma pipe, [1] on dma_out.
  logic [31:0] dma_rd_addr [2][PORT], dma_rd_data [2][PORT], dma_wr_addr [2][PORT], dma_wr_data [2][PORT];
  logic        dma_wr_en [2][PORT];
  for (genvar e = 0; e < 2; e++) begin : g_dma
    localparam int P = e == 0 ? int'(PIPE_DMA) : int'(SLOT_DMA_OUT);
    dma_engine #(.PORT(PORT)) dma (
        .clk, .rst, .issue(issue[P]), .word(q_word[P]), .index(q_index[P]), .busy(unit_busy[P]),
        .rd_addr(dma_rd_addr[e]), .rd_data(dma_rd_data[e]), .wr_en(dma_wr_en[e]), .wr_addr(dma_wr_addr[e]),
        .wr_data(dma_wr_data[e]), .req_valid(req_valid[e]), .req_ready(req_ready[e]), .req_write(req_write[e]),
        .req_addr(req_addr[e]), .req_stride(req_stride[e]), .req_count(req_count[e]), .req_data(req_data[e]),
        .req_tag(req_tag[e]), .resp_valid(resp_valid[e]), .resp_tag, .resp_count, .resp_data, .wack_valid(wack_valid[e]));
  end

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
    for (int e = 0; e < 2; e++)
      for (int j = 0; j < PORT; j++) dma_rd_data[e][j] = spm[dma_rd_addr[e][j][SW-1:0]];
    for (int j = 0; j < N; j++) begin
      mx_a_data[j] = spm[mx_a_addr[j][SW-1:0]];
      mx_b_data[j] = spm[mx_b_addr[j][SW-1:0]];
      mx_c_data[j] = spm[mx_c_addr[j][SW-1:0]];
    end
    for (int j = 0; j < 2*LANES; j++) vx_rd_data[j] = spm[vx_rd_addr[j][SW-1:0]];
  end
  always_ff @(posedge clk) begin
    for (int e = 0; e < 2; e++)
      for (int j = 0; j < PORT; j++) if (dma_wr_en[e][j]) spm[dma_wr_addr[e][j][SW-1:0]] <= dma_wr_data[e][j];
    for (int j = 0; j < N; j++) if (mx_wr_en[j]) spm[mx_wr_addr[j][SW-1:0]] <= mx_wr_data[j];
    for (int j = 0; j < LANES; j++) if (vx_wr_en[j]) spm[vx_wr_addr[j][SW-1:0]] <= vx_wr_data[j];
  end
endmodule
