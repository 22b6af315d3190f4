// The DMA pipe's engine: copies a strided block between the chip's DRAM and this core's SPM (or
// within the SPM), one row segment of up to PORT elements per cycle — PORT words is the width
// of the SPM port and of the DRAM port. Reads from DRAM are tagged with where their data goes
// in the SPM and written when they return; the transfer ends when the last response or write
// acknowledgement is back.
module dma_engine
  import dfx_pkg::*;
#(
    parameter int PORT = 32
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        issue,
    input  word_t       word,
    input  index_t      index,
    output logic        busy,
    // SPM: combinational reads, writes at the clock edge
    output logic [31:0] rd_addr [PORT],
    input  logic [31:0] rd_data [PORT],
    output logic        wr_en   [PORT],
    output logic [31:0] wr_addr [PORT],
    output logic [31:0] wr_data [PORT],
    // DRAM requests: one segment per accepted cycle
    output logic        req_valid,
    input  logic        req_ready,
    output logic        req_write,
    output logic [31:0] req_addr,
    output logic [31:0] req_stride,
    output logic [31:0] req_count,
    output logic [31:0] req_data [PORT],
    output logic [63:0] req_tag,     // reads: SPM address and stride of the data
    input  logic        resp_valid,  // read data back
    input  logic [63:0] resp_tag,
    input  logic [31:0] resp_count,
    input  logic [31:0] resp_data [PORT],
    input  logic        wack_valid   // a write accepted by DRAM
);
  block_t src, dst;
  logic   src_present, dst_present;
  block_resolver #(.OPERAND(1)) resolve_src (.word, .index, .block(src), .present(src_present));
  block_resolver #(.OPERAND(0)) resolve_dst (.word, .index, .block(dst), .present(dst_present));

  logic        src_dram, dst_dram;
  logic [31:0] take, outstanding;
  logic        src_valid, dst_valid, src_last, dst_last;
  logic signed [31:0] src_address, dst_address, src_stride, dst_stride;
  logic [31:0] src_left, dst_left;

  block_walker src_walk (
      .clk, .rst, .start(issue), .base(src.base), .sizes(src.sizes), .strides(src.strides), .take,
      .valid(src_valid), .address(src_address), .stride(src_stride), .row_left(src_left), .last_row(src_last));
  block_walker dst_walk (
      .clk, .rst, .start(issue), .base(dst.base), .sizes(dst.sizes), .strides(dst.strides), .take,
      .valid(dst_valid), .address(dst_address), .stride(dst_stride), .row_left(dst_left), .last_row(dst_last));

  logic walking, advance;
  logic [31:0] piece;  // the segment both blocks can move this cycle
  always_comb begin
    walking = busy && src_valid && dst_valid;
    piece = src_left < dst_left ? src_left : dst_left;
    if (piece > 32'(PORT)) piece = 32'(PORT);
    req_valid = walking && (src_dram || dst_dram);
    req_write = dst_dram;
    req_addr = src_dram ? src_address : dst_address;
    req_stride = src_dram ? src_stride : dst_stride;
    req_count = piece;
    req_tag = {dst_address, dst_stride};
    for (int j = 0; j < PORT; j++) begin
      rd_addr[j] = src_address + j * src_stride;
      req_data[j] = rd_data[j];
    end
  end
  // Apart from the block above: the grant depends on req_valid.
  always_comb begin
    advance = walking && (req_valid ? req_ready : 1'b1);
    take = advance ? piece : '0;
    for (int j = 0; j < PORT; j++) begin
      if (resp_valid) begin
        wr_en[j] = 32'(j) < resp_count;
        wr_addr[j] = resp_tag[63:32] + j * resp_tag[31:0];
        wr_data[j] = resp_data[j];
      end else begin
        wr_en[j] = advance && !req_valid && 32'(j) < piece;  // SPM to SPM
        wr_addr[j] = dst_address + j * dst_stride;
        wr_data[j] = rd_data[j];
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0;
      src_dram <= 1'b0;
      dst_dram <= 1'b0;
      outstanding <= '0;
    end else begin
      if (issue) begin
        busy <= 1'b1;
        src_dram <= src.dram;
        dst_dram <= dst.dram;
      end else if (busy && !src_valid && outstanding == '0) begin
        busy <= 1'b0;
      end
      outstanding <= outstanding + 32'(advance && req_valid) - 32'(resp_valid) - 32'(wack_valid);
    end
  end

  logic unused;
  assign unused = ^{src_last, dst_last, src_present, dst_present};
endmodule
