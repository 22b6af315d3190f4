// The queue between the dispatcher and one pipe: instruction words with the loop indices they
// were dispatched at, first in first out (the SystemC model's per-pipe queue, depth 8).
module pipe_queue
  import dfx_pkg::*;
#(
    parameter int DEPTH = 8
) (
    input  logic   clk,
    input  logic   rst,
    input  logic   push,
    input  word_t  push_word,
    input  index_t push_index,
    output logic   full,
    output logic   head_valid,
    output word_t  head_word,
    output index_t head_index,
    input  logic   pop
);
  localparam int AW = $clog2(DEPTH);
  word_t        words   [DEPTH];
  index_t       indices [DEPTH];
  logic [AW-1:0] rd, wr;
  logic [AW:0]   count;

  assign full = count == (AW+1)'(DEPTH);
  assign head_valid = count != '0;
  assign head_word = words[rd];
  assign head_index = indices[rd];

  always_ff @(posedge clk) begin
    if (rst) begin
      rd <= '0;
      wr <= '0;
      count <= '0;
    end else begin
      if (push && !full) begin
        words[wr] <= push_word;
        indices[wr] <= push_index;
        wr <= wr + 1'b1;
      end
      if (pop && head_valid) rd <= rd + 1'b1;
      count <= count + (AW+1)'(push && !full) - (AW+1)'(pop && head_valid);
    end
  end
endmodule
