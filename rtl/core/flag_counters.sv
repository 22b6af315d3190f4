// Counting flags between the pipes of a core: set_flag P -> Q E increments counter (P, Q, E),
// wait_flag P -> Q E waits until it is non-zero and decrements it. Each counter has one setter
// (pipe P) and one waiter (pipe Q), so at most one increment and one decrement per cycle.
module flag_counters #(
    parameter int PIPES = 5,  // pipe slots (dfx_pkg::SLOTS)
    parameter int CW = 16
) (
    input  logic       clk,
    input  logic       rst,
    input  logic       set_req [PIPES],  // pipe p sets (p, set_to[p], set_event[p])
    input  logic [3:0] set_to    [PIPES],
    input  logic [3:0] set_event [PIPES],
    input  logic       wait_req [PIPES],  // pipe q waits for (wait_from[q], q, wait_event[q])
    input  logic [3:0] wait_from  [PIPES],
    input  logic [3:0] wait_event [PIPES],
    output logic       wait_ok  [PIPES]   // the wait succeeds (and consumes) this cycle
);
  localparam int IW = $clog2(PIPES);
  logic [CW-1:0] count [PIPES][PIPES][16];

  always_comb
    for (int q = 0; q < PIPES; q++)
      wait_ok[q] = wait_req[q] && int'(wait_from[q]) < PIPES && count[wait_from[q][IW-1:0]][q][wait_event[q]] != '0;

  // One register per counter (a generate loop: Verilator cannot unroll a 5×5×16 loop of
  // delayed assignments).
  for (genvar p = 0; p < PIPES; p++) begin : g_from
    for (genvar q = 0; q < PIPES; q++) begin : g_to
      for (genvar e = 0; e < 16; e++) begin : g_event
        always_ff @(posedge clk)
          if (rst) count[p][q][e] <= '0;
          else
            count[p][q][e] <= count[p][q][e]
                + CW'(set_req[p] && int'(set_to[p]) == q && int'(set_event[p]) == e)
                - CW'(wait_ok[q] && int'(wait_from[q]) == p && int'(wait_event[q]) == e);
      end
    end
  end
endmodule
