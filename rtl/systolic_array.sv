// Kept out of traces: two-dimensional unpacked arrays do not trace in this Verilator (5.006).
/* verilator tracing_off */
// An N×N output-stationary systolic array: A's rows enter from the left, B's columns from the
// top, each skewed by one cycle per row/column (the driver does the skewing); every PE
// multiplies what passes through it and accumulates into its own C element.
// After K + 2N - 2 cycles of valid input, acc holds C = A·B for an N×K by K×N product.
// Blocks run back to back: the first operand of a block carries first_in (it travels with A's
// row); when it reaches a PE, the PE moves its finished C element into its shadow register and
// starts the new block's sum, so the next block streams in while the previous one is read out
// of `shadow` (the drain the SystemC model charges, docs/simulator.md).
module systolic_array #(
    parameter int N = 4,
    parameter int W = 16,   // operand width (signed)
    parameter int ACC = 32  // accumulator width (signed)
) (
    input  logic                  clk,
    input  logic                  rst,      // synchronous: clears data and accumulators
    input  logic                  en,       // the array holds everything while low (an idle unit)
    input  logic                  clear,    // clears the accumulators only (start of a tile)
    input  logic signed [W-1:0]   a_in [N], // one element per row, already skewed
    input  logic signed [W-1:0]   b_in [N], // one element per column, already skewed
    input  logic                  first_in [N],  // with a_in: k = 0 of a new block
    output logic signed [ACC-1:0] acc  [N][N],
    output logic signed [ACC-1:0] shadow [N][N] // the previous block's C, for draining
);
  logic signed [W-1:0] a_q [N][N];    // operand registers, passed right
  logic signed [W-1:0] b_q [N][N];    // operand registers, passed down
  logic signed [W-1:0] a_cur [N][N];  // what reaches each PE this cycle
  logic signed [W-1:0] b_cur [N][N];
  logic                f_q [N][N];    // first-of-block tags, passed right with A
  logic                f_cur [N][N];

  always_comb begin
    for (int r = 0; r < N; r++) begin
      for (int c = 0; c < N; c++) begin
        a_cur[r][c] = (c == 0) ? a_in[r] : a_q[r][c-1];
        f_cur[r][c] = (c == 0) ? first_in[r] : f_q[r][c-1];
        b_cur[r][c] = (r == 0) ? b_in[c] : b_q[r-1][c];
      end
    end
  end

  // One clocked block per row (a block per PE simulates far slower; one over the whole array
  // needs more loop unrolling than Verilator does by default at N = 16).
  for (genvar r = 0; r < N; r++) begin : g_row
    always_ff @(posedge clk) begin
      for (int c = 0; c < N; c++) begin
        if (rst) begin
          a_q[r][c] <= '0;
          b_q[r][c] <= '0;
          f_q[r][c] <= 1'b0;
          acc[r][c] <= '0;
          shadow[r][c] <= '0;
        end else if (en) begin
          a_q[r][c] <= a_cur[r][c];
          b_q[r][c] <= b_cur[r][c];
          f_q[r][c] <= f_cur[r][c];
          // Operands are widened first: the product keeps all 2W bits.
          if (clear) begin
            acc[r][c] <= '0;
          end else if (f_cur[r][c]) begin
            shadow[r][c] <= acc[r][c];
            acc[r][c] <= ACC'(a_cur[r][c]) * ACC'(b_cur[r][c]);
          end else begin
            acc[r][c] <= acc[r][c] + ACC'(a_cur[r][c]) * ACC'(b_cur[r][c]);
          end
        end
      end
    end
  end
endmodule
