/// `/viewer.css`: the look of the viewer's side panel. The map's own look is the style's.
enum ViewerStylesheet {
    static let source = #"""
    html, body { margin: 0; height: 100%; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #0f172a; }
    #app { display: flex; height: 100%; }
    #panel { width: 320px; flex: none; display: flex; flex-direction: column; border-right: 1px solid #cbd5e1;
             background: #ffffff; min-height: 0; }
    #map { flex: 1; min-width: 0; }
    #panel header { display: flex; align-items: center; gap: 8px; padding: 10px 12px 6px; }
    #panel h1 { font-size: 15px; margin: 0; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .status { font-size: 11px; color: #64748b; white-space: nowrap; }
    .status::before { content: ""; display: inline-block; width: 8px; height: 8px; border-radius: 50%;
                      margin-right: 4px; background: #94a3b8; vertical-align: 0; }
    .status.live::before { background: #16a34a; }
    .status.down::before { background: #dc2626; }
    #filter { margin: 0 12px; padding: 6px 8px; border: 1px solid #cbd5e1; border-radius: 6px; font: inherit; }
    .count { padding: 4px 12px; color: #64748b; font-size: 12px; }
    #list { flex: 1; min-height: 120px; overflow-y: auto; position: relative; border-top: 1px solid #e2e8f0; }
    #list-rows { position: relative; }
    .row { position: absolute; left: 0; right: 0; height: 44px; box-sizing: border-box; padding: 5px 12px 5px 22px;
           border-bottom: 1px solid #f1f5f9; cursor: pointer; overflow: hidden; }
    .row:hover { background: #f8fafc; }
    .row.selected { background: #fef3c7; }
    .row .swatch { position: absolute; left: 8px; top: 9px; width: 6px; height: 26px; border-radius: 3px; }
    .row .name { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-weight: 500; }
    .row .meta { font-size: 12px; color: #64748b; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .meta { color: #475569; font-size: 12px; }
    #details { border-top: 1px solid #cbd5e1; padding: 8px 12px; max-height: 45%; overflow-y: auto; }
    #details h2 { font-size: 14px; margin: 0 0 2px; }
    .playback { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 8px 0; }
    .playback button { font: inherit; padding: 3px 12px; border: 1px solid #94a3b8; border-radius: 6px; background: #f8fafc; cursor: pointer; }
    .playback input[type=range] { flex-basis: 100%; margin: 0; }
    #steps { margin: 0; padding-left: 22px; }
    #steps li { padding: 3px 0; cursor: pointer; border-bottom: 1px solid #f1f5f9; }
    #steps li:hover { background: #f8fafc; }
    #steps li.current { background: #fef3c7; }
    .toggle { padding: 6px 12px; border-top: 1px solid #e2e8f0; font-size: 12px; color: #475569; }
    .notice { padding: 6px 12px; background: #fff7ed; color: #9a3412; font-size: 12px; }
    .playback-marker { width: 26px; height: 26px; }
    .props { font: 12px/1.4 system-ui, sans-serif; border-collapse: collapse; }
    .props td { padding: 1px 6px; border-bottom: 1px solid #e2e8f0; vertical-align: top; }
    .props td:first-child { color: #475569; }
    @media (max-width: 700px) { #app { flex-direction: column-reverse; } #panel { width: auto; height: 40%; } }
    """#
}
