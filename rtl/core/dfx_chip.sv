// CORES TPU-like cores on one DRAM port: the port takes one request per cycle (a segment of up
// to PORT words, the DRAM bandwidth), granted to the requesting cores in round-robin order;
// responses and write acknowledgements go back to the core named in their tag. A barrier
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
    output logic [31:0] busy_cycles [CORES][3],
    // the DRAM port
    output logic        dram_req_valid,
    output logic [7:0]  dram_req_core,
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
  logic        req_valid [CORES], req_ready [CORES], req_write [CORES], at_barrier [CORES];
  logic [31:0] req_addr [CORES], req_stride [CORES], req_count [CORES];
  logic [31:0] req_data [CORES][PORT];
  logic [63:0] req_tag [CORES];
  logic        release_all;

  for (genvar c = 0; c < CORES; c++) begin : g_core
    dfx_core #(.N(N), .LANES(LANES), .PORT(PORT), .SPM_WORDS(SPM_WORDS), .IMEM_WORDS(IMEM_WORDS)) core (
        .clk, .rst, .imem_we(imem_we[c]), .imem_addr, .imem_data, .start, .done(done[c]),
        .at_barrier(at_barrier[c]), .barrier_release(release_all), .busy_cycles(busy_cycles[c]),
        .req_valid(req_valid[c]), .req_ready(req_ready[c]), .req_write(req_write[c]), .req_addr(req_addr[c]),
        .req_stride(req_stride[c]), .req_count(req_count[c]), .req_data(req_data[c]), .req_tag(req_tag[c]),
        .resp_valid(dram_resp_valid && int'(dram_resp_core) == c), .resp_tag(dram_resp_tag),
        .resp_count(dram_resp_count), .resp_data(dram_resp_data),
        .wack_valid(dram_wack_valid && int'(dram_wack_core) == c));
  end

  // Round robin: the first requesting core at or after `next`.
  localparam int CW = CORES > 1 ? $clog2(CORES) : 1;
  logic [7:0]    next, grant;
  logic [CW-1:0] g;
  logic          any;
  always_comb begin
    any = 1'b0;
    grant = '0;
    for (int i = 0; i < CORES; i++)
      if (!any && req_valid[(int'(next) + i) % CORES]) begin
        any = 1'b1;
        grant = 8'((int'(next) + i) % CORES);
      end
    g = grant[CW-1:0];
    dram_req_valid = any;
    dram_req_core = grant;
    dram_req_write = req_write[g];
    dram_req_addr = req_addr[g];
    dram_req_stride = req_stride[g];
    dram_req_count = req_count[g];
    dram_req_data = req_data[g];
    dram_req_tag = req_tag[g];
    release_all = 1'b1;
    for (int c = 0; c < CORES; c++) release_all &= at_barrier[c];
  end

  always_comb for (int c = 0; c < CORES; c++) req_ready[c] = any && int'(grant) == c;

  always_ff @(posedge clk)
    if (rst) next <= '0;
    else if (any) next <= 8'((int'(grant) + 1) % CORES);
endmodule
