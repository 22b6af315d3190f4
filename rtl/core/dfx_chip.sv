// CORES TPU-like cores on one DRAM port: the port takes one request per cycle (a segment of up
// to PORT words, the DRAM bandwidth), granted to the requesting DMA engines (two per core: core
// c's dma is requester 2c, its dma_out 2c + 1) in round-robin order; responses and write
// acknowledgements go back to the requester that made them. A barrier
// releases when every core is at it. The DRAM itself (latency, contents) is the harness's.
module dfx_chip
  import dfx_pkg::*;
#(
    parameter int CORES = 4,
    parameter int N = 16,
    parameter int LANES = 48,
    parameter int PORT = 32,
    parameter int SPM_WORDS = 196608,
    parameter int IMEM_WORDS = 1024
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        imem_we [CORES],
    input  logic [31:0] imem_addr,
    input  word_t       imem_data,
    input  logic        start,
    output logic        done [CORES],
    output logic [31:0] busy_cycles [CORES][4],
    // the DRAM port
    output logic        dram_req_valid,
    output logic [7:0]  dram_req_core,   // the requester: 2 × core + engine
    output logic        dram_req_write,
    output logic [31:0] dram_req_addr,
    output logic [31:0] dram_req_stride,
    output logic [31:0] dram_req_count,
    output logic [31:0] dram_req_data [PORT],
    output logic [63:0] dram_req_tag,
    input  logic        dram_resp_valid,
    input  logic [7:0]  dram_resp_core,
    input  logic [63:0] dram_resp_tag,
    input  logic [31:0] dram_resp_count,
    input  logic [31:0] dram_resp_data [PORT],
    input  logic        dram_wack_valid,
    input  logic [7:0]  dram_wack_core
);
  localparam int REQ = 2 * CORES;  // requesters
  logic        req_valid [CORES][2], req_ready [CORES][2], req_write [CORES][2], at_barrier [CORES];
  logic [31:0] req_addr [CORES][2], req_stride [CORES][2], req_count [CORES][2];
  logic [31:0] req_data [CORES][2][PORT];
  logic [63:0] req_tag [CORES][2];
  logic        resp_valid [CORES][2], wack_valid [CORES][2];
  logic        release_all;

  for (genvar c = 0; c < CORES; c++) begin : g_core
    dfx_core #(.N(N), .LANES(LANES), .PORT(PORT), .SPM_WORDS(SPM_WORDS), .IMEM_WORDS(IMEM_WORDS)) core (
        .clk, .rst, .imem_we(imem_we[c]), .imem_addr, .imem_data, .start, .done(done[c]),
        .at_barrier(at_barrier[c]), .barrier_release(release_all), .busy_cycles(busy_cycles[c]),
        .req_valid(req_valid[c]), .req_ready(req_ready[c]), .req_write(req_write[c]), .req_addr(req_addr[c]),
        .req_stride(req_stride[c]), .req_count(req_count[c]), .req_data(req_data[c]), .req_tag(req_tag[c]),
        .resp_valid(resp_valid[c]), .resp_tag(dram_resp_tag), .resp_count(dram_resp_count), .resp_data(dram_resp_data),
        .wack_valid(wack_valid[c]));
  end

  always_comb
    for (int c = 0; c < CORES; c++)
      for (int e = 0; e < 2; e++) begin
        resp_valid[c][e] = dram_resp_valid && int'(dram_resp_core) == 2 * c + e;
        wack_valid[c][e] = dram_wack_valid && int'(dram_wack_core) == 2 * c + e;
      end

  // Round robin: the first requester at or after `next`.
  localparam int CW = $clog2(CORES) > 0 ? $clog2(CORES) : 1;
  logic [7:0]    next, grant;
  logic [CW-1:0] gc;  // granted core
  logic          ge;  // granted engine
  logic          any;
  always_comb begin
    any = 1'b0;
    grant = '0;
    for (int i = 0; i < REQ; i++)
      if (!any && req_valid[((int'(next) + i) % REQ) / 2][((int'(next) + i) % REQ) % 2]) begin
        any = 1'b1;
        grant = 8'((int'(next) + i) % REQ);
      end
    gc = grant[CW:1];
    ge = grant[0];
    dram_req_valid = any;
    dram_req_core = grant;
    dram_req_write = req_write[gc][ge];
    dram_req_addr = req_addr[gc][ge];
    dram_req_stride = req_stride[gc][ge];
    dram_req_count = req_count[gc][ge];
    dram_req_data = req_data[gc][ge];
    dram_req_tag = req_tag[gc][ge];
    release_all = 1'b1;
    for (int c = 0; c < CORES; c++) release_all &= at_barrier[c];
  end

  always_comb
    for (int c = 0; c < CORES; c++)
      for (int e = 0; e < 2; e++) req_ready[c][e] = any && int'(grant) == 2 * c + e;

  always_ff @(posedge clk)
    if (rst) next <= '0;
    else if (any) next <= 8'((int'(grant) + 1) % REQ);
endmodule
