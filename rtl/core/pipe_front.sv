// The head of a pipe's queue: flag instructions run here (a set takes one cycle; a wait holds
// the queue until its flag is non-zero), anything else issues to the pipe's unit when the unit
// is free. Shared by the DMA, matrix and vector pipes.
module pipe_front
  import dfx_pkg::*;
(
    input  logic       head_valid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  word_t      head_word,  // only the opcode and flag fields are read
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic       unit_busy,
    output logic       pop,
    output logic       issue,      // start the unit on head_word this cycle
    output logic       set_req,
    output logic [3:0] set_to,     // slots (dfx_pkg)
    output logic [3:0] set_event,
    output logic       wait_req,
    output logic [3:0] wait_from,
    output logic [3:0] wait_event,
    input  logic       wait_ok
);
  logic pop_now;  // a set or an issue
  always_comb begin
    pop_now = 1'b0;
    issue = 1'b0;
    set_req = 1'b0;
    wait_req = 1'b0;
    set_to = `DFX_SLOT(`DFX_FLAG_TO(head_word));
    set_event = `DFX_FLAG_EVENT(head_word);
    wait_from = `DFX_SLOT(`DFX_FLAG_FROM(head_word));
    wait_event = `DFX_FLAG_EVENT(head_word);
    if (head_valid && !unit_busy) begin
      case (`DFX_OPCODE(head_word))
        OP_SET: begin
          set_req = 1'b1;
          pop_now = 1'b1;
        end
        OP_WAIT: wait_req = 1'b1;  // pops when the wait succeeds (below)
        default: begin
          issue = 1'b1;
          pop_now = 1'b1;
        end
      endcase
    end
  end
  // Apart from the block above: wait_ok depends on wait_req.
  assign pop = pop_now || (wait_req && wait_ok);
endmodule
