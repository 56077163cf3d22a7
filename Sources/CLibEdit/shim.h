// Debian's libedit (libedit-dev): line editing, history and completion for `larder shell`,
// through its readline-compatible interface.
#include <stdio.h>
#include <editline/readline.h>

// readline's settings are C globals, which Swift 6 does not let code touch (they are shared
// mutable state); these set and read them for the one shell a process runs.
static inline void larder_edit_configure(const char *name, rl_completion_func_t *complete) {
    rl_readline_name = name;
    rl_attempted_completion_function = complete;
}

static inline const char *larder_edit_line_buffer(void) { return rl_line_buffer; }

static inline void larder_edit_completion_is_over(void) { rl_attempted_completion_over = 1; }
