-- Neovim (0.7 API) as a real client of `weft lsp`: nvim_test.go runs
--   nvim --headless -u NONE -i NONE -n -c 'luafile lost_update.lua'
-- with WEFT_BIN (the weft binary), WEFT_MODEL (the .weft file to open),
-- WEFT_NVIM_OUT (where to write what happened, as JSON) and
-- WEFT_NVIM_TIMEOUT_MS (the bound of each wait) in the environment.
--
-- It opens the model, attaches Neovim's built-in LSP client, waits for the
-- bug diagnostics, asks for a hover with the cursor on the shared variable
-- (as K would), refreshes the code lenses and runs the replay lens with the
-- cursor on its line (as :lua vim.lsp.codelens.run() would): the server
-- asks Neovim to show the counterexample's text (window/showDocument,
-- which Neovim 0.7 does not handle itself: the handler below is the one
-- docs/editors.md gives); then it runs the code action "Show
-- counterexample" on the assertion's line (as :lua
-- vim.lsp.buf.code_action() would), stops the client, and writes
-- everything down for the Go test to judge. It judges nothing itself: it
-- only reports, and says where it gave up.

local out_path = assert(os.getenv('WEFT_NVIM_OUT'), 'WEFT_NVIM_OUT is not set')
local bin = assert(os.getenv('WEFT_BIN'), 'WEFT_BIN is not set')
local model = assert(os.getenv('WEFT_MODEL'), 'WEFT_MODEL is not set')
local timeout = tonumber(os.getenv('WEFT_NVIM_TIMEOUT_MS') or '20000')

local report = {
  nvim = tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch,
  reached = {}, -- the steps done, in order: where it stopped if it failed
  published = {}, -- each publishDiagnostics: version and number of diagnostics
  statuses = {}, -- each weft/status state, in order
}

local function reached(step)
  table.insert(report.reached, step)
end

local function since(t0)
  return math.floor((vim.loop.hrtime() - t0) / 1e6)
end

-- wait_for waits for cond, or fails with what it waited for.
local function wait_for(what, cond)
  if not vim.wait(timeout, cond, 10) then
    error('timed out after ' .. timeout .. ' ms waiting for ' .. what, 0)
  end
end

local function main()
  vim.cmd('edit ' .. vim.fn.fnameescape(model))
  local buf = vim.api.nvim_get_current_buf()

  -- The global handlers a user's requests go through: record, then let
  -- Neovim do what it does with the answer (open a float, run a command).
  local hover_default = vim.lsp.handlers['textDocument/hover']
  vim.lsp.handlers['textDocument/hover'] = function(err, result, ctx, config)
    report.hover = { err = err or vim.NIL, result = result or vim.NIL }
    local ok, msg = pcall(hover_default, err, result, ctx, config)
    if not ok then
      report.hover.handler_error = tostring(msg)
    end
  end
  vim.lsp.handlers['workspace/executeCommand'] = function(err, result, ctx)
    report.command = { err = err or vim.NIL, result = result or vim.NIL, method = ctx.method }
  end
  -- Several lenses on the cursor's line (or code actions): pick the
  -- replay, as a user would.
  vim.ui.select = function(items, opts, on_choice)
    for i, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      if title:find('^Replay: ') or title:find('^Show counterexample') then
        report.picked = report.picked or {}
        table.insert(report.picked, title)
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  -- window/showDocument: Neovim 0.7 has no handler (0.8 has one); this is
  -- the one docs/editors.md gives. It opens the file and says it did.
  local shown
  local function show_document(_, result)
    local path = vim.uri_to_fname(result.uri)
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    shown = { uri = result.uri, path = path, lines = vim.api.nvim_buf_get_lines(0, 0, 3, false) }
    return { success = true }
  end
  -- The client opts in to weft/status and says it can show documents.
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.experimental = { weftStatus = true }
  capabilities.window.showDocument = { support = true }

  local exited
  local t0 = vim.loop.hrtime()
  local client_id = vim.lsp.start_client({
    name = 'weft',
    cmd = { bin, 'lsp', '--stdio' },
    root_dir = vim.fn.fnamemodify(model, ':p:h'),
    capabilities = capabilities,
    handlers = {
      ['window/showDocument'] = show_document,
      ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
        table.insert(report.published, { version = result.version or vim.NIL, count = #result.diagnostics, ms = since(t0) })
        return vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, config)
      end,
      ['weft/status'] = function(_, result)
        table.insert(report.statuses, result.state)
      end,
    },
    on_exit = function(code, signal)
      exited = { code = code, signal = signal }
    end,
  })
  if not client_id then
    error('vim.lsp.start_client refused the configuration', 0)
  end
  if not vim.lsp.buf_attach_client(buf, client_id) then
    error('vim.lsp.buf_attach_client failed', 0)
  end
  reached('attached')

  -- The bugs, as Neovim shows them (vim.diagnostic: 0-based lnum, byte col).
  local function codes()
    local seen = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      seen[tostring(d.code)] = true
    end
    return seen
  end
  wait_for('the assertion and data-race diagnostics', function()
    local seen = codes()
    return seen['assertion'] and seen['data-race']
  end)
  report.first_bugs_ms = since(t0)
  report.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(report.diagnostics, {
      code = tostring(d.code), lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, source = d.source or vim.NIL, message = d.message,
    })
  end
  reached('diagnostics')

  -- Hover on the shared variable c, in `var c int`, as K would ask.
  local var_line
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:find('^var c ') then
      var_line = i
      break
    end
  end
  if not var_line then
    error('no `var c` line in ' .. model, 0)
  end
  vim.api.nvim_win_set_cursor(0, { var_line, 4 })
  report.hover_position = { line = var_line - 1, character = 4 }
  vim.lsp.buf.hover()
  wait_for('the hover answer', function()
    return report.hover ~= nil
  end)
  reached('hover')

  -- The code lenses, through Neovim's own codelens module.
  vim.lsp.codelens.refresh()
  local replay
  wait_for('a replay lens', function()
    for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
      if lens.command and lens.command.title:find('^Replay: ') then
        replay = lens
        return true
      end
    end
    return false
  end)
  report.lenses = {}
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    table.insert(report.lenses, {
      line = lens.range.start.line,
      title = lens.command and lens.command.title or vim.NIL,
      command = lens.command and lens.command.command or vim.NIL,
    })
  end
  reached('lenses')

  -- Run the lens under the cursor on the assertion's line.
  local assert_lens
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    if lens.command and lens.command.title:find('^Replay: ') then
      for _, d in ipairs(report.diagnostics) do
        if d.code == 'assertion' and d.lnum == lens.range.start.line then
          assert_lens = lens
        end
      end
    end
  end
  assert_lens = assert_lens or replay
  report.ran_lens = { line = assert_lens.range.start.line, title = assert_lens.command.title }
  vim.api.nvim_win_set_cursor(0, { assert_lens.range.start.line + 1, 0 })
  vim.lsp.codelens.run()
  wait_for('the answer of ' .. assert_lens.command.command, function()
    return report.command ~= nil
  end)
  reached('command')

  -- The command also asked Neovim to show the counterexample as text.
  wait_for('window/showDocument from ' .. assert_lens.command.command, function()
    return shown ~= nil
  end)
  report.shown = shown
  reached('shown')

  -- The code action on the assertion's diagnostic does the same.
  shown, report.command = nil, nil
  vim.cmd('buffer ' .. buf)
  vim.api.nvim_win_set_cursor(0, { assert_lens.range.start.line + 1, 4 })
  vim.lsp.buf.code_action()
  wait_for('window/showDocument from the code action', function()
    return shown ~= nil
  end)
  report.action_command = report.command
  report.action_shown = shown
  reached('code action')

  -- Stop the client: shutdown, exit, and the server's process ends.
  vim.lsp.stop_client(client_id)
  wait_for('the server to exit', function()
    return exited ~= nil
  end)
  report.exit = exited
  reached('stopped')
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  report.error = tostring(err)
end
local f = assert(io.open(out_path, 'w'))
f:write(vim.fn.json_encode(report))
f:close()
vim.cmd('qall!')
